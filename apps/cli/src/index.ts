// Public API of @destination/cli: run `dst` in-process (tests, other tools), and the views it
// draws, for programs that show destination answers themselves.

// For users: one run of `dst` with the process's I/O or an injected one, and its exit code.

export type { CliIo, TextSink } from "./cli-io.js";
export { processIo } from "./cli-io.js";
export { ExitCode } from "./exit-code.js";
export { runCli } from "./run-cli.js";

// For authors of tools that show destination answers: the endpoint set a Get stream builds, the
// endpoint table and profile renderers, and their styles.

export {
  type EndpointMark,
  EndpointSet,
  type EndpointSetView,
  type MarkedEndpoint,
} from "./endpoints/endpoint-set.js";
export { formatEndpointTable } from "./render/endpoint-table.js";
export { formatProfile } from "./render/profile-view.js";
export { colorStyles, plainStyles, type Styles } from "./render/styles.js";
