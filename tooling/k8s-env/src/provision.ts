// Provisioning lives in plain JS (lib/provision.js) so the CLI runs without a build step.
export {
  type Binaries,
  DEFAULT_K8S_VERSION,
  ensureBinaries,
  type ProvisionOptions,
  resolveProvisionConfig,
} from "../lib/provision.js";
