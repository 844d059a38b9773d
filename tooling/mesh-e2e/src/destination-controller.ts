// The destination service under test, the chart's `destination` container: OUR server
// (apps/destination-server's built binary) or upstream's (`linkerd-controller destination`), both
// started with the container's args exactly as the rendered chart gives them, the leading
// `destination` included, plus what a pod would otherwise provide: `-kubeconfig` for the API
// server (in a pod, the service-account mount) and HOSTNAME (the pod's name).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { KubeEnv } from "@destination/k8s-env";
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";
import { untilReady } from "@destination/proxy-e2e/until-ready";
import type { PodNamespace } from "./pod-namespace.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

export const DESTINATIONS = ["ours", "upstream"] as const;
/** Which destination service runs in the chart's `destination` container. */
export type DestinationKind = (typeof DESTINATIONS)[number];

export const DESTINATION_GRPC_PORT = 8086;
export const DESTINATION_ADMIN_PORT = 9996;

const APP = fileURLToPath(new URL("../../../apps/destination-server", import.meta.url));

/** The command that stands in the `destination` container's image for `kind`. */
export function destinationCommand(
  kind: DestinationKind,
  release: LinkerdRelease,
): { cmd: string; prefix: string[] } {
  if (kind === "upstream") return { cmd: release.controllerBin, prefix: [] };
  if (!existsSync(`${APP}/dist/main.js`)) {
    throw new Error(
      "apps/destination-server/dist is missing: run `pnpm turbo run build --filter=@destination/mesh-e2e...` (pnpm test:mesh does)",
    );
  }
  return { cmd: process.execPath, prefix: [`${APP}/bin/destination-server.js`] };
}

export interface DestinationProcess {
  readonly process: StartedProcess;
  readonly adminSocket: string;
}

export async function startDestination(
  kind: DestinationKind,
  pod: PodNamespace,
  release: LinkerdRelease,
  chart: RenderedChart,
  apiServer: KubeEnv,
  hostname: string,
): Promise<DestinationProcess> {
  const { cmd, prefix } = destinationCommand(kind, release);
  const args = [
    ...prefix,
    ...chart.args("linkerd-destination", "destination"),
    `-kubeconfig=${apiServer.kubeconfigPath}`,
  ];
  const proc = pod.start(`destination (${kind})`, cmd, args, { HOSTNAME: hostname });
  const adminSocket = await pod.expose(DESTINATION_ADMIN_PORT);
  await untilReady(proc, adminSocket);
  return { process: proc, adminSocket };
}
