// The `destination` container of the `linkerd-destination` Deployment: the one the drop-in
// replaces, read out of a set of manifests (a render, or what the API server would store).
import type { KubeObject } from "@destination/k8s-env";

export interface DestinationContainer {
  readonly name: string;
  readonly image: string;
  readonly args?: string[];
  readonly command?: string[];
  readonly securityContext?: {
    readonly runAsUser?: number;
    readonly runAsGroup?: number;
    readonly runAsNonRoot?: boolean;
    readonly readOnlyRootFilesystem?: boolean;
  };
  readonly livenessProbe?: { readonly httpGet?: { readonly path: string } };
  readonly readinessProbe?: { readonly httpGet?: { readonly path: string } };
}

/** The container, or an error naming what is missing. */
export function destinationContainer(objects: readonly KubeObject[]): DestinationContainer {
  const deployment = objects.find(
    (o) => o.kind === "Deployment" && o.metadata.name === "linkerd-destination",
  );
  if (!deployment) throw new Error("no Deployment linkerd-destination");
  const spec = deployment.spec as { template?: { spec?: { containers?: DestinationContainer[] } } };
  const container = spec.template?.spec?.containers?.find((c) => c.name === "destination");
  if (!container) throw new Error("linkerd-destination has no container named destination");
  return container;
}
