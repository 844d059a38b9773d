// The cluster backend as one module, imported on demand by `loadKubeBackend`: with it come
// `@kubernetes/client-node`, the list/watch loop and the generated protobuf readers, which a
// user of the manifests or memory backend never needs.

export { createKubeCluster } from "./kube-cluster.js";
export { loadKubeConfig } from "./kube-config.js";
