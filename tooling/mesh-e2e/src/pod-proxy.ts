// A pod's linkerd2-proxy: a workload's (the injector's environment, proxy-env.ts) or a
// control-plane pod's own; its token from the TokenRequest API, its certificate from upstream's
// identity.
import type { NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import type { NetworkNamespace } from "@destination/proxy-e2e/network-namespace";
import {
  type LaunchedProxy,
  type ProxyLaunch,
  ProxyProcess,
} from "@destination/proxy-e2e/proxy-process";
import type { ProxiedPod } from "./proxy-env.js";

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

  /** Starts the proxy of `pod`; its identity (and SPIFFE ID for a workload) follow the pod. */
  static async start(
    ns: NetworkNamespace,
    agent: NamespaceAgent,
    workDir: string,
    pod: ProxiedPod,
    launch: Omit<ProxyLaunch, "name" | "identity" | "uris">,
  ): Promise<PodProxy> {
    const launched = await ProxyProcess.launch(ns, agent, workDir, {
      ...launch,
      name: pod.name,
      identity: identityName(pod),
      // An external workload is known by its SPIFFE ID (ExternalWorkload meshTLS.identity).
      ...(pod.externalWorkload ? { uris: [spiffeId(pod)] } : {}),
    });
    return new PodProxy(pod, launched);
  }
}
