// A pod's linkerd2-proxy in the workloads' namespace: the injector's environment for that pod
// (proxy-env.ts), its token from the TokenRequest API, its certificate from upstream's identity.
import type { NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import type { NetworkNamespace } from "@destination/proxy-e2e/network-namespace";
import { type LaunchedProxy, ProxyProcess } from "@destination/proxy-e2e/proxy-process";
import {
  type ControlPlaneAddresses,
  chartPort,
  injectedProxyEnv,
  type ProxiedPod,
} from "./proxy-env.js";
import type { RenderedChart } from "./rendered-chart.js";

/** The name upstream's identity issues for a pod's service account (the chart's LOCAL_NAME). */
export function identityName(pod: Pick<ProxiedPod, "serviceAccount" | "namespace">): string {
  return `${pod.serviceAccount}.${pod.namespace}.serviceaccount.identity.linkerd.cluster.local`;
}

/** The SPIFFE ID of a pod's service account in the chart's trust domain. */
export function spiffeId(pod: Pick<ProxiedPod, "serviceAccount" | "namespace">): string {
  return `spiffe://cluster.local/ns/${pod.namespace}/sa/${pod.serviceAccount}`;
}

export class PodProxy extends ProxyProcess {
  private constructor(
    readonly pod: ProxiedPod,
    launched: LaunchedProxy,
  ) {
    super(launched.process, launched.adminSocket);
  }

  static async start(
    ns: NetworkNamespace,
    agent: NamespaceAgent,
    workDir: string,
    chart: RenderedChart,
    pod: ProxiedPod,
    controlPlane: ControlPlaneAddresses,
    token: string,
    uid: number,
  ): Promise<PodProxy> {
    const launched = await ProxyProcess.launch(ns, agent, workDir, {
      name: pod.name,
      identity: identityName(pod),
      // An external workload is known by its SPIFFE ID (ExternalWorkload meshTLS.identity).
      ...(pod.externalWorkload ? { uris: [spiffeId(pod)] } : {}),
      uid,
      token,
      env: (files) => injectedProxyEnv(chart, pod, controlPlane, files),
      admin: { host: pod.ip, port: chartPort(chart, "LINKERD2_PROXY_ADMIN_LISTEN_ADDR") },
    });
    return new PodProxy(pod, launched);
  }
}
