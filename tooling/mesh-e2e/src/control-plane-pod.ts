// A control-plane pod meshed as the chart meshes it: its Pod object in the API server (the
// Deployment's template, scheduled, with an IP), the iptables linkerd-init would write (its
// inbound ports go to its proxy), and its own `linkerd-proxy`, with the rendered environment
// as it is, certified by upstream's identity for the pod's service account.
import { NODE_NAME, uidOf } from "@destination/proxy-e2e/cluster-objects";
import { ApiServerWriter } from "@destination/proxy-e2e/cluster-writer";
import { CONTROL_PLANE_NAMESPACE, type KubeCluster } from "./kube-cluster.js";
import type { PodNamespace } from "./pod-namespace.js";
import { PodProxy } from "./pod-proxy.js";
import { chartPort, controlPlaneProxyEnv, type ProxiedPod } from "./proxy-env.js";
import type { RenderedChart } from "./rendered-chart.js";

/** The chart's proxy uid (linkerd-init's --proxy-uid). */
const PROXY_UID = 2102;

interface Template {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { serviceAccountName: string };
}

export function podTemplate(chart: RenderedChart, deployment: string): Template {
  return (chart.deployment(deployment).spec as unknown as { template: Template }).template;
}

/** The ports the Deployment's proxy takes inbound (its LINKERD2_PROXY_INBOUND_PORTS). */
export function inboundPorts(chart: RenderedChart, deployment: string): number[] {
  const v = chart
    .container(deployment, "linkerd-proxy")
    .env?.find((e) => e.name === "LINKERD2_PROXY_INBOUND_PORTS");
  return (v?.value ?? "").split(",").filter(Boolean).map(Number);
}

/** Where a control-plane pod lives and who it is. */
export interface ControlPlanePodRef {
  readonly deployment: string;
  readonly pod: PodNamespace;
  readonly hostname: string;
  readonly ip: string;
}

function proxiedPod(chart: RenderedChart, ref: ControlPlanePodRef): ProxiedPod {
  return {
    name: ref.hostname,
    namespace: CONTROL_PLANE_NAMESPACE,
    uid: uidOf("pod", ref.hostname, ref.ip),
    ip: ref.ip,
    nodeName: NODE_NAME,
    serviceAccount: podTemplate(chart, ref.deployment).spec.serviceAccountName,
    ports: inboundPorts(chart, ref.deployment),
  };
}

/** The pod's object in the API server and linkerd-init's rules in its namespace. */
export async function placeControlPlanePod(
  chart: RenderedChart,
  cluster: KubeCluster,
  ref: ControlPlanePodRef,
): Promise<void> {
  const { deployment, pod, hostname, ip } = ref;
  const template = podTemplate(chart, deployment);
  const proxied = proxiedPod(chart, ref);
  await new ApiServerWriter(cluster.env).apply({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: hostname,
      namespace: CONTROL_PLANE_NAMESPACE,
      labels: template.metadata.labels,
      ...(template.metadata.annotations ? { annotations: template.metadata.annotations } : {}),
    },
    spec: { ...template.spec, nodeName: NODE_NAME },
    status: {
      phase: "Running",
      podIP: ip,
      podIPs: [{ ip }],
      conditions: [{ type: "Ready", status: "True" }],
    },
  });
  // linkerd-init: what arrives for the pod's inbound ports goes to its proxy's inbound port,
  // but the proxy's own connections (to its containers). Here arriving traffic is the
  // bridges' (local), so the rule is in OUTPUT.
  const inbound = chartPort(chart, "LINKERD2_PROXY_INBOUND_LISTEN_ADDR");
  pod.ns.iptables(
    ...["-t", "nat", "-I", "OUTPUT", "1", "-p", "tcp", "-d", `${ip}/32`],
    ...["-m", "multiport", "--dports", proxied.ports.join(",")],
    ...["-m", "owner", "!", "--uid-owner", String(PROXY_UID), "-j", "DNAT"],
    ...["--to-destination", `${ip}:${inbound}`],
  );
}

/** The pod's own proxy, with the rendered environment as it is. */
export async function startControlPlaneProxy(
  chart: RenderedChart,
  cluster: KubeCluster,
  ref: ControlPlanePodRef,
  resolvConf: string,
): Promise<PodProxy> {
  const { deployment, pod, ip } = ref;
  const proxied = proxiedPod(chart, ref);
  const token = await cluster.identityToken(proxied.serviceAccount, CONTROL_PLANE_NAMESPACE);
  return PodProxy.start(pod.ns, pod.agent, pod.dir, proxied, {
    uid: PROXY_UID,
    token,
    env: (files) => controlPlaneProxyEnv(chart, deployment, proxied, files),
    admin: { host: ip, port: chartPort(chart, "LINKERD2_PROXY_ADMIN_LISTEN_ADDR") },
    resolvConf,
  });
}
