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
export { kubeRemoteClusterFactory } from "./remote-cluster-factory.js";
