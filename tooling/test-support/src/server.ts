// The `@destination/server/testing` entry: builders of Kubernetes test objects and a recorder of
// the service's gRPC streams, shared by the server's tests and tooling/integration. Not part of
// the main entry; imports no test runner.

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
