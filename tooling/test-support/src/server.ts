// `@destination/test-support/server`: what the server's tests and the suites that drive a server
// (tooling/integration, observability-e2e, deploy-e2e, the bench) share: a recorder of the
// service's gRPC streams and the convergence check; the objects come from ./builders.ts. Imports
// no test runner.

export { type AnnouncedEndpoint, EndpointView, sameAnnouncement } from "@destination/proto";
export {
  type ConvergenceDifference,
  type ConvergenceReport,
  checkConvergence,
  clusterObjects,
  describeConvergence,
  type ObservedStream,
  type TranslationOptions,
} from "./convergence.js";
export {
  connect,
  get,
  getProfile,
  ipv4,
  request,
  type StreamEnd,
  StreamRecorder,
  sleep,
} from "./streams.js";
