// The `@destination/core/testing` entry: builders of the Kubernetes and Linkerd objects of
// `../objects`, as plain JSON the way an API server lists them, for every package's tests and the
// bench. Not part of the main entry; imports no test runner and nothing outside core.

export {
  type ExternalWorkloadOptions,
  externalWorkload,
  type ServerOptions,
  server,
  serviceProfile,
} from "./builders/linkerd-builders.js";
export {
  type MeshedPodOptions,
  meshedPod,
  NS,
  type PodOptions,
  PROXY_ENV,
  pod,
  replicaSet,
  unmeshedPod,
} from "./builders/pod-builders.js";
export {
  type EndpointOptions,
  endpoint,
  endpointsObject,
  namespace,
  node,
  podEndpoint,
  type ServiceOptions,
  type SliceOptions,
  service,
  slice,
  ZONE_LABEL,
} from "./builders/service-builders.js";
