// The meshed workloads of one test: a network namespace holding its pods (the agent's fake
// apps on pod IPs) and their proxies, the pods' objects in the API server, and the iptables
// rules linkerd-init would write in each pod. The namespace joins the control plane's pod
// network (its names, over mTLS), or with loopback addressing reaches the control plane at
// 127.0.0.1 bridged to its pods. `close()` ends all of it and deletes what the test applied.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KubeObject,
  NAMESPACE,
  NODE_NAME,
  type PodSpec,
  pod as podObject,
  uidOf,
} from "@destination/proxy-e2e/cluster-objects";
import { ApiServerWriter } from "@destination/proxy-e2e/cluster-writer";
import type { RunningIdentityService } from "@destination/proxy-e2e/identity-service";
import { SERVICE_CIDR } from "@destination/proxy-e2e/kube-backend";
import { type HttpPodMode, NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import { NetworkNamespace } from "@destination/proxy-e2e/network-namespace";
import type { ControlPlane } from "./control-plane.js";
import { DESTINATION_GRPC_PORT } from "./destination-controller.js";
import { IDENTITY_GRPC_PORT } from "./identity-controller.js";
import type { KubeCluster } from "./kube-cluster.js";
import { identityName, PodProxy } from "./pod-proxy.js";
import { POLICY_GRPC_PORT } from "./policy-controller.js";
import { chartPort, injectedProxyEnv, injectorAddresses, type ProxiedPod } from "./proxy-env.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";
import { startWorkloadIdentity, WORKLOAD_IDENTITY_PORT } from "./workload-identity.js";

/** The chart's proxy uid (linkerd-init's --proxy-uid): the client pod's proxy runs as it. */
export const CLIENT_PROXY_UID = 2102;
/**
 * The server pods' proxies. In a cluster every proxy is 2102 in a namespace of its own; here
 * the pods share one, and iptables tells a client proxy's connection to a pod (to be sent to
 * that pod's proxy) from the pod's proxy's own (to be let through to the app) by uid.
 */
export const SERVER_PROXY_UID = 2103;

const LOOPBACK = "127.0.0.1";

export class Workloads {
  readonly proxies: PodProxy[] = [];
  private readonly writer: ApiServerWriter;
  private readonly applied = new Map<string, { kind: string; name: string }>();
  private workloadIdentity: RunningIdentityService | undefined;
  /** With the chart's addressing: the resolv.conf naming the network's DNS server. */
  private resolvConf: string | undefined;

  private constructor(
    readonly ns: NetworkNamespace,
    readonly agent: NamespaceAgent,
    private readonly workDir: string,
    private readonly cluster: KubeCluster,
    private readonly chart: RenderedChart,
    private readonly release: LinkerdRelease,
  ) {
    this.writer = new ApiServerWriter(cluster.env);
  }

  static async create(
    controlPlane: ControlPlane,
    cluster: KubeCluster,
    chart: RenderedChart,
    release: LinkerdRelease,
  ): Promise<Workloads> {
    const workDir = mkdtempSync(join(tmpdir(), "mesh-e2e-workloads-"));
    const ns = NetworkNamespace.create("me2e");
    const w = new Workloads(
      ns,
      NamespaceAgent.start(ns, workDir),
      workDir,
      cluster,
      chart,
      release,
    );
    try {
      if (controlPlane.network !== undefined) {
        w.resolvConf = await controlPlane.network.join(w.agent, workDir);
      } else {
        // A ClusterIP of the control plane's replicas: each connection to the next live one.
        const { endpoints } = controlPlane;
        await w.agent.listen("destination", LOOPBACK, DESTINATION_GRPC_PORT, endpoints.destination);
        await w.agent.listen("policy", LOOPBACK, POLICY_GRPC_PORT, endpoints.policy);
        await w.agent.listen("identity", LOOPBACK, IDENTITY_GRPC_PORT, endpoints.identity);
      }
    } catch (err) {
      await w.close();
      throw err;
    }
    return w;
  }

  async apply(...objects: KubeObject[]): Promise<void> {
    for (const o of objects)
      this.applied.set(`${o.kind}/${o.metadata.name}`, { kind: o.kind, name: o.metadata.name });
    await this.writer.apply(...objects);
  }

  async delete(kind: string, name: string): Promise<void> {
    this.applied.delete(`${kind}/${name}`);
    await this.writer.delete(kind, name);
  }

  /** The fake app of a pod, on its pod IP (HTTP answering with its name, or TCP echo). */
  async serveApp(p: PodSpec, app: HttpPodMode | { mode: "tcp" } = { mode: "ok" }): Promise<void> {
    if (app.mode === "tcp") await this.agent.tcpPod(p.name, p.ip, p.port);
    else await this.agent.httpPod(p.name, p.ip, p.port, app);
  }

  /**
   * A meshed server pod's proxy in front of its app: inbound connections to the pod's port go
   * to the proxy's inbound port on the pod IP (linkerd-init's PREROUTING redirect), for every
   * uid but the server proxies' own.
   */
  async startServerProxy(p: PodSpec, { redirect = true } = {}): Promise<PodProxy> {
    const proxy = await this.startProxy(p, SERVER_PROXY_UID);
    const inbound = chartPort(this.chart, "LINKERD2_PROXY_INBOUND_LISTEN_ADDR");
    // Without the redirect, only a client that names the inbound port itself (the opaque
    // transport hint) reaches the proxy; anything else goes straight to the app.
    if (redirect) this.dnat(`${p.ip}/32`, p.port, `${p.ip}:${inbound}`, SERVER_PROXY_UID);
    return proxy;
  }

  /**
   * The proxy beside an external workload (an ExternalWorkload of `p.name`, not a pod): its
   * certificate, with the workload's SPIFFE ID, from the SPIRE stand-in (workload-identity.ts);
   * the workload's port goes to it as a meshed pod's does.
   */
  async startExternalWorkloadProxy(p: PodSpec): Promise<PodProxy> {
    if (this.workloadIdentity === undefined) {
      const socket = join(this.workDir, "workload-identity.sock");
      this.workloadIdentity = await startWorkloadIdentity(this.release.pkiDir, socket);
      await this.agent.listen("workload-identity", LOOPBACK, WORKLOAD_IDENTITY_PORT, socket);
    }
    const identity = this.workloadIdentity;
    const proxy = await this.startProxy(p, SERVER_PROXY_UID, {
      externalWorkload: true,
      identityAddress: `${LOOPBACK}:${WORKLOAD_IDENTITY_PORT}`,
      token: (name) => identity.issueToken(name),
    });
    const inbound = chartPort(this.chart, "LINKERD2_PROXY_INBOUND_LISTEN_ADDR");
    this.dnat(`${p.ip}/32`, p.port, `${p.ip}:${inbound}`, SERVER_PROXY_UID);
    return proxy;
  }

  /**
   * The client pod and its proxy: what the app sends to a Service's ClusterIP goes to the
   * proxy's outbound port (linkerd-init's OUTPUT redirect, here of the Service range only so the
   * suite's own bridges are left alone). The app is the test process: `agent.forward` to a
   * ClusterIP.
   */
  async startClientPod(p: PodSpec): Promise<PodProxy> {
    await this.apply(podObject({ ...p, meshed: true }));
    const proxy = await this.startProxy(p, CLIENT_PROXY_UID);
    const outbound = chartPort(this.chart, "LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR");
    this.dnat(SERVICE_CIDR, undefined, `${p.ip}:${outbound}`, CLIENT_PROXY_UID);
    return proxy;
  }

  private async startProxy(
    p: PodSpec,
    uid: number,
    how: {
      externalWorkload?: boolean;
      identityAddress?: string;
      /** The token for an identity name; by default a TokenRequest for the service account. */
      token?: (identity: string) => string;
    } = {},
  ): Promise<PodProxy> {
    const proxied: ProxiedPod = {
      name: p.name,
      namespace: NAMESPACE,
      uid: uidOf("pod", p.name, p.ip),
      ip: p.ip,
      nodeName: NODE_NAME,
      serviceAccount: p.serviceAccount ?? p.app,
      ports: [p.port],
      externalWorkload: how.externalWorkload ?? false,
    };
    const token =
      how.token?.(identityName(proxied)) ??
      (await this.cluster.identityToken(proxied.serviceAccount));
    const addresses =
      this.resolvConf === undefined
        ? {
            destination: `${LOOPBACK}:${DESTINATION_GRPC_PORT}`,
            policy: `${LOOPBACK}:${POLICY_GRPC_PORT}`,
            identity: `${LOOPBACK}:${IDENTITY_GRPC_PORT}`,
          }
        : injectorAddresses(this.chart);
    const controlPlane = {
      ...addresses,
      ...(how.identityAddress ? { identity: how.identityAddress } : {}),
    };
    const proxy = await PodProxy.start(this.ns, this.agent, this.workDir, proxied, {
      uid,
      token,
      env: (files) => injectedProxyEnv(this.chart, proxied, controlPlane, files),
      admin: { host: p.ip, port: chartPort(this.chart, "LINKERD2_PROXY_ADMIN_LISTEN_ADDR") },
      ...(this.resolvConf === undefined ? {} : { resolvConf: this.resolvConf }),
    });
    this.proxies.push(proxy);
    return proxy;
  }

  private dnat(cidr: string, dport: number | undefined, to: string, exceptUid: number): void {
    this.ns.iptables(
      ...["-t", "nat", "-I", "OUTPUT", "1", "-p", "tcp", "-d", cidr],
      ...(dport === undefined ? [] : ["--dport", String(dport)]),
      ...["-m", "owner", "!", "--uid-owner", String(exceptUid), "-j", "DNAT"],
      ...["--to-destination", to],
    );
  }

  diagnostics(): string {
    return this.ns.outputs();
  }

  async close(): Promise<void> {
    await this.ns.delete();
    await this.workloadIdentity?.close();
    for (const { kind, name } of [...this.applied.values()].reverse()) {
      await this.writer.delete(kind, name).catch(() => {});
    }
    rmSync(this.workDir, { recursive: true, force: true });
  }
}
