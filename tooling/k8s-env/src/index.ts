export { ADMIN_USER } from "./certs.js";
export {
  type AuditEvent,
  type AuditFilter,
  CRD_DIR,
  FIELD_MANAGER,
  type KubeEnv,
  type KubeResponse,
  type RequestOptions,
  type ServiceAccountKubeconfig,
  type StartKubeEnvOptions,
  startKubeEnv,
} from "./env.js";
export { type KubeconfigUser, renderKubeconfig } from "./kubeconfig.js";
export { type KubeObject, type Manifests, parseManifests } from "./manifests.js";
export {
  type Binaries,
  DEFAULT_K8S_VERSION,
  ensureBinaries,
  type ProvisionOptions,
  resolveProvisionConfig,
} from "./provision.js";
