// Public API of @destination/multicluster: the cluster store, which turns link Secrets into
// linked remote clusters, and federated Services, which resolve their members against them.

// For users: the store and its remote clusters, the default way to reach one, federated
// Services, and what their followers hear.

export type {
  ClusterListener,
  ClusterStoreOptions,
  RemoteCluster,
  RemoteClusterFactory,
} from "./cluster-store.js";
export { ClusterStore } from "./cluster-store.js";
export type {
  FederatedMembers,
  FederationListener,
  LinkedMember,
} from "./federated-services.js";
export { FederatedServices } from "./federated-services.js";
export type { RemoteMember } from "./federation.js";
export { kubeRemoteClusterFactory } from "./remote-cluster-factory.js";

// For authors of servers: the labels and annotations Linkerd's multicluster support writes, to
// tell a federated or mirrored Service and a link Secret apart.

export {
  isFederated,
  LOCAL_DISCOVERY_ANNOTATION,
  REMOTE_DISCOVERY_ANNOTATION,
  REMOTE_DISCOVERY_LABEL,
  REMOTE_SERVICE_LABEL,
} from "./federation.js";
export {
  CLUSTER_DOMAIN_ANNOTATION,
  LINK_SECRET_TYPE,
  MULTICLUSTER_CLUSTER_NAME_LABEL,
  TRUST_DOMAIN_ANNOTATION,
} from "./link-secret.js";
