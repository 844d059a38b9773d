// Upstream's policy controller, the chart's `policy` container of linkerd-destination, started
// with its args as rendered. It finds the API server through KUBECONFIG, and serves its
// admission webhook with the TLS pair of the rendered `linkerd-policy-validator-k8s-tls` Secret,
// mounted where its args say (/var/run/linkerd/tls, see linkerd-run-dir.ts). The webhook is
// not registered with the API server; discovery does not need it.
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";
import { untilReady } from "@destination/proxy-e2e/until-ready";
import { withRunDir, writeRunDir } from "./linkerd-run-dir.js";
import type { PodNamespace } from "./pod-namespace.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

export const POLICY_GRPC_PORT = 8090;
const POLICY_ADMIN_PORT = 9990;
const TLS_SECRET = "linkerd-policy-validator-k8s-tls";

export async function startPolicyController(
  pod: PodNamespace,
  release: LinkerdRelease,
  chart: RenderedChart,
  apiServer: KubeEnv,
  hostname: string,
): Promise<StartedProcess> {
  const runDir = join(pod.dir, "policy-var-run-linkerd");
  writeRunDir(runDir, {
    "tls/tls.crt": chart.data("Secret", TLS_SECRET, "tls.crt"),
    "tls/tls.key": chart.data("Secret", TLS_SECRET, "tls.key"),
  });
  const [cmd, args] = withRunDir(
    runDir,
    release.policyControllerBin,
    chart.args("linkerd-destination", "policy"),
  );
  const proc = pod.start("policy", cmd, args, {
    KUBECONFIG: apiServer.kubeconfigPath,
    HOSTNAME: hostname,
  });
  await untilReady(proc, await pod.expose(POLICY_ADMIN_PORT));
  return proc;
}
