// The `@destination/server/testing` entry: builders of Kubernetes test objects and a recorder of
// the service's gRPC streams, shared by the server's tests and tooling/integration. Not part of
// the main entry; imports no test runner.
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
} from "./objects.js";
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
