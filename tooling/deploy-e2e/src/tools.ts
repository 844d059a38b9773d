// The pinned Helm 4, Helm 3 and kustomize, as the global setup provisioned them.
import { goToolPath, HELM, HELM3, KUSTOMIZE } from "../lib/go-tools.mjs";

export const helmBinary = (): string => goToolPath(HELM);
export const helm3Binary = (): string => goToolPath(HELM3);
export const kustomizeBinary = (): string => goToolPath(KUSTOMIZE);
export { HELM, HELM3, KUSTOMIZE };
