// The pod network of the control plane's pods, for proxies that reach the control plane as the
// chart says: by the headless Services' DNS names, over mTLS to each control-plane pod's own
// proxy. Each namespace that joins gets a DNS server answering those names with the pods' IPs
// (what cluster DNS answers for a headless Service) and, on each of those IPs, a bridge to the
// pod's namespace, where the pod's iptables hand the connection to its proxy.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import { CONTROL_PLANE_NAMESPACE } from "./kube-cluster.js";
import type { PodNamespace } from "./pod-namespace.js";
import type { RenderedChart } from "./rendered-chart.js";

/** Where a joined namespace's DNS server listens (its resolv.conf's nameserver). */
const DNS_HOST = "127.0.0.53";
const DNS_PORT = 53;

interface MemberPod {
  readonly pod: PodNamespace;
  readonly ip: string;
  readonly labels: Readonly<Record<string, string>>;
}

interface ServiceShape {
  metadata: { name: string };
  spec?: {
    selector?: Record<string, string>;
    ports?: { port: number; targetPort?: number | string }[];
  };
}

export class ClusterNetwork {
  private readonly members: MemberPod[] = [];

  constructor(private readonly chart: RenderedChart) {}

  add(pod: PodNamespace, ip: string, labels: Record<string, string>): void {
    this.members.push({ pod, ip, labels });
  }

  /** The chart's Services of its namespace, each with the members it selects. */
  private services(): { name: string; ports: number[]; selected: MemberPod[] }[] {
    const out = [];
    for (const o of this.chart.namespaceObjects(CONTROL_PLANE_NAMESPACE)) {
      if (o.kind !== "Service") continue;
      const svc = o as unknown as ServiceShape;
      const selector = Object.entries(svc.spec?.selector ?? {});
      if (selector.length === 0) continue;
      out.push({
        name: `${svc.metadata.name}.${CONTROL_PLANE_NAMESPACE}.svc.cluster.local`,
        // A named target port (the webhooks') is not one a proxy connects to: left out.
        ports: (svc.spec?.ports ?? [])
          .map((p) => p.targetPort ?? p.port)
          .filter((p): p is number => typeof p === "number"),
        selected: this.members.filter((m) => selector.every(([k, v]) => m.labels[k] === v)),
      });
    }
    return out;
  }

  /** Each Service's DNS name and the IPs of the pods it selects (a headless Service's answer). */
  records(): Record<string, string[]> {
    return Object.fromEntries(this.services().map((s) => [s.name, s.selected.map((m) => m.ip)]));
  }

  /**
   * Joins a namespace (through its agent): a DNS server, and every member's IP:ports bridged to
   * that member. A member joining (`self`) gets no bridge to itself, nor on a port its own
   * containers listen on (on every address): its siblings' ports, which it never calls.
   * Returns the resolv.conf its proxies are to read.
   */
  async join(
    agent: NamespaceAgent,
    dir: string,
    self?: { readonly pod: PodNamespace; readonly ports: readonly number[] },
  ): Promise<string> {
    await agent.dns("cluster-dns", DNS_HOST, DNS_PORT, this.records());
    const bridged = new Set<string>();
    for (const svc of this.services()) {
      for (const m of svc.selected) {
        for (const port of svc.ports) {
          const key = `${m.ip}:${port}`;
          if (m.pod === self?.pod || self?.ports.includes(port) || bridged.has(key)) continue;
          bridged.add(key);
          await agent.listen(`pod-${key}`, m.ip, port, await m.pod.expose(port, m.ip));
        }
      }
    }
    const resolvConf = join(dir, "resolv.conf");
    writeFileSync(resolvConf, `nameserver ${DNS_HOST}\n`, { mode: 0o644 });
    return resolvConf;
  }
}
