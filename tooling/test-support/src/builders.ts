// `@destination/test-support/builders`: builders of the Kubernetes and Linkerd objects of
// `@destination/core`, as plain JSON the way an API server lists them, for every package's tests
// and the bench. Imports no test runner and nothing but core's types.

export {
  type ExternalWorkloadOptions,
  externalWorkload,
  type ServerOptions,
  server,
  serviceProfile,
} from "./builders/linkerd-builders.js";
export {
  CLUSTER_POD,
  job,
  type Manifest,
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
  clusterBasics,
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
