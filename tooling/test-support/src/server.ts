// `@destination/test-support/server`: what the server's tests and the suites that drive a server
// (tooling/integration, observability-e2e, deploy-e2e, the bench) share: cluster objects, a
// recorder of the service's gRPC streams and the convergence check. Imports no test runner.

export { type AnnouncedEndpoint, EndpointView, sameAnnouncement } from "@destination/server";
export {
  clusterBasics,
  externalWorkload,
  job,
  namespace,
  node,
  type PodSpec,
  PROXY_ENV,
  pod,
  replicaSet,
  type SliceEndpoint,
  server,
  service,
  serviceProfile,
  slice,
} from "./cluster-objects.js";
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
