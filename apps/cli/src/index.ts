// Public API of @destination/cli: run `dst` in-process (tests, other tools) and the pieces a
// script may want to reuse.
export {
  buildContextToken,
  type CliCommand,
  type ContextTokenParts,
  type OutputFormat,
  parseCommandLine,
  type SessionOptions,
  UsageError,
} from "./args/parse-command-line.js";
export type { CliIo, TextSink } from "./cli-io.js";
export { processIo } from "./cli-io.js";
export type { EndpointsReportView } from "./diagnose/admin-endpoints.js";
export { parseServiceAuthority, type ServiceAuthority } from "./diagnose/service-authority.js";
export {
  type EndpointMark,
  EndpointSet,
  type EndpointSetView,
  type MarkedEndpoint,
} from "./endpoints/endpoint-set.js";
export { CliFailure, ExitCode } from "./exit-code.js";
export { formatDiagnosis } from "./render/diagnosis-view.js";
export { formatEndpointTable } from "./render/endpoint-table.js";
export { formatProfile } from "./render/profile-view.js";
export { colorStyles, plainStyles, type Styles } from "./render/styles.js";
export { runCli } from "./run-cli.js";
