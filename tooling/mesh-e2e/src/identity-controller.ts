// Upstream's identity controller (`linkerd-controller identity`), the proxies' certificate
// authority, started with the args of the rendered `linkerd-identity` Deployment. As the chart
// mounts them, the issuer (`crt.pem`, `key.pem`) and the trust roots (`ca-bundle.crt`) sit under
// /var/run/linkerd/identity, in a mount namespace of its own (see linkerd-run-dir.ts); they come
// from the release's pki/, which the rendered chart was made with.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";
import { untilReady } from "@destination/proxy-e2e/until-ready";
import { withRunDir, writeRunDir } from "./linkerd-run-dir.js";
import type { PodNamespace } from "./pod-namespace.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

/** The chart's identity ports (container ports of `identity`). */
export const IDENTITY_GRPC_PORT = 8080;
const IDENTITY_ADMIN_PORT = 9990;

export async function startIdentityController(
  pod: PodNamespace,
  release: LinkerdRelease,
  chart: RenderedChart,
  apiServer: KubeEnv,
): Promise<StartedProcess> {
  const runDir = join(pod.dir, "var-run-linkerd");
  const pki = (file: string) => readFileSync(join(release.pkiDir, file), "utf8");
  writeRunDir(runDir, {
    "identity/issuer/crt.pem": pki("issuer.crt"),
    "identity/issuer/key.pem": pki("issuer.key"),
    "identity/trust-roots/ca-bundle.crt": pki("ca.crt"),
  });
  const args = [
    ...chart.args("linkerd-identity", "identity"),
    // What the pod's service-account mount would otherwise give it.
    `-kubeconfig=${apiServer.kubeconfigPath}`,
  ];
  const [cmd, wrapped] = withRunDir(runDir, release.controllerBin, args);
  const proc = pod.start("identity", cmd, wrapped, { HOSTNAME: "linkerd-identity-0" });
  await untilReady(proc, await pod.expose(IDENTITY_ADMIN_PORT));
  return proc;
}
