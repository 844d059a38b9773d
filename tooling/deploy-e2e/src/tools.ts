// The pinned Helm and kustomize, as the global setup provisioned them.
import { goToolPath, HELM, KUSTOMIZE } from "../lib/go-tools.mjs";

export const helmBinary = (): string => goToolPath(HELM);
export const kustomizeBinary = (): string => goToolPath(KUSTOMIZE);
export { HELM, KUSTOMIZE };
