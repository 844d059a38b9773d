// What the chart's control plane runs, as processes: the linkerd-identity pod (upstream's
// identity controller) and each replica of the linkerd-destination pod (the destination service
// under test beside upstream's policy controller; one replica, or three in the HA render), each
// pod in a network namespace of its own, against the suite's API server. Proxies reach the gRPC
// ports through the Unix sockets in `endpoints`.
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";
import { ClusterNetwork } from "./cluster-network.js";
import {
  inboundPorts,
  placeControlPlanePod,
  podTemplate,
  startControlPlaneProxy,
} from "./control-plane-pod.js";
import {
  DESTINATION_GRPC_PORT,
  type DestinationKind,
  type DestinationProcess,
  startDestination,
} from "./destination-controller.js";
import { IDENTITY_GRPC_PORT, startIdentityController } from "./identity-controller.js";
import type { KubeCluster } from "./kube-cluster.js";
import { PodNamespace } from "./pod-namespace.js";
import type { PodProxy } from "./pod-proxy.js";
import { POLICY_GRPC_PORT, startPolicyController } from "./policy-controller.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

/** Unix sockets reaching the control plane's gRPC ports, one per destination replica. */
export interface ControlPlaneEndpoints {
  readonly destination: readonly string[];
  readonly policy: readonly string[];
  readonly identity: string;
}

/**
 * How proxies reach the control plane: `loopback`, plaintext at 127.0.0.1 bridged to its pods;
 * or as the chart says (`chart`): by the headless Services' names, over mTLS to each pod's own
 * proxy (see cluster-network.ts).
 */
export type Addressing = "loopback" | "chart";

/** One pod of the linkerd-destination Deployment. */
interface DestinationReplica {
  /** The pod's name, its HOSTNAME (upstream's Lease holder identity). */
  readonly hostname: string;
  readonly pod: PodNamespace;
  readonly ip: string;
  destination: DestinationProcess | undefined;
  policy: StartedProcess | undefined;
  /** With `chart` addressing: the pod's own proxy. */
  proxy: PodProxy | undefined;
  /** With `chart` addressing: the resolv.conf its proxy reads. */
  resolvConf?: string;
}

const REPLICA_SUFFIXES = ["x2x7q", "b8kfm", "q4zwd", "m9tcl", "h5rvn"];
const IDENTITY_POD = { hostname: "linkerd-identity-5c8f7d9b6-k2x9p", ip: "10.244.200.2" };
const replicaIp = (i: number) => `10.244.200.${11 + i}`;

export class ControlPlane {
  private constructor(
    readonly kind: DestinationKind,
    private readonly release: LinkerdRelease,
    private readonly chart: RenderedChart,
    private readonly cluster: KubeCluster,
    private readonly identityPod: PodNamespace,
    private readonly replicas: readonly DestinationReplica[],
    readonly endpoints: ControlPlaneEndpoints,
    /** With `chart` addressing, the network a workloads' namespace joins. */
    readonly network: ClusterNetwork | undefined,
  ) {}

  static async start(
    kind: DestinationKind,
    release: LinkerdRelease,
    chart: RenderedChart,
    cluster: KubeCluster,
    addressing: Addressing = "loopback",
  ): Promise<ControlPlane> {
    const pods: PodNamespace[] = [];
    try {
      const identityPod = await PodNamespace.create("linkerd-identity", cluster.env);
      pods.push(identityPod);
      const count = chart.deployment("linkerd-destination").spec.replicas ?? 1;
      const replicas: DestinationReplica[] = [];
      for (const [i, suffix] of REPLICA_SUFFIXES.slice(0, count).entries()) {
        const pod = await PodNamespace.create("linkerd-destination", cluster.env);
        pods.push(pod);
        replicas.push({
          hostname: `linkerd-destination-7d9f8b6c4-${suffix}`,
          pod,
          ip: replicaIp(i),
          destination: undefined,
          policy: undefined,
          proxy: undefined,
        });
      }
      // Side by side: each waits only on the API server.
      await Promise.all([
        startIdentityController(identityPod, release, chart, cluster.env),
        ...replicas.map(async (r) => {
          r.policy = await startPolicyController(r.pod, release, chart, cluster.env, r.hostname);
        }),
      ]);
      const endpoints = {
        destination: await Promise.all(replicas.map((r) => r.pod.expose(DESTINATION_GRPC_PORT))),
        policy: await Promise.all(replicas.map((r) => r.pod.expose(POLICY_GRPC_PORT))),
        identity: await identityPod.expose(IDENTITY_GRPC_PORT),
      };
      const network = addressing === "chart" ? new ClusterNetwork(chart) : undefined;
      const cp = new ControlPlane(
        kind,
        release,
        chart,
        cluster,
        identityPod,
        replicas,
        endpoints,
        network,
      );
      for (const r of replicas) await cp.startDestination(r.hostname);
      if (network !== undefined) {
        const identityRef = { deployment: "linkerd-identity", pod: identityPod, ...IDENTITY_POD };
        const members = [
          identityRef,
          ...replicas.map((r) => ({ deployment: "linkerd-destination", ...r })),
        ];
        for (const m of members) {
          network.add(m.pod, m.ip, podTemplate(chart, m.deployment).metadata.labels);
          await placeControlPlanePod(chart, cluster, m);
        }
        // The identity pod's proxy first: the others are certified through it.
        const identityResolvConf = await network.join(identityPod.agent, identityPod.dir, {
          pod: identityPod,
          ports: inboundPorts(chart, "linkerd-identity"),
        });
        await startControlPlaneProxy(chart, cluster, identityRef, identityResolvConf);
        for (const r of replicas) {
          r.resolvConf = await network.join(r.pod.agent, r.pod.dir, {
            pod: r.pod,
            ports: inboundPorts(chart, "linkerd-destination"),
          });
          await cp.startReplicaProxy(r);
        }
      }
      return cp;
    } catch (err) {
      for (const p of pods) {
        console.error(p.diagnostics());
        await p.close();
      }
      throw err;
    }
  }

  /** The destination replicas' pod names, in order. */
  get hostnames(): string[] {
    return this.replicas.map((r) => r.hostname);
  }

  private replica(hostname = this.hostnames[0]): DestinationReplica {
    const r = this.replicas.find((x) => x.hostname === hostname);
    if (r === undefined) throw new Error(`no destination replica ${hostname}`);
    return r;
  }

  /** The destination container of a replica (the first by default). */
  async startDestination(hostname?: string): Promise<void> {
    const r = this.replica(hostname);
    if (r.destination !== undefined) throw new Error(`${r.hostname}: destination is running`);
    r.destination = await startDestination(
      this.kind,
      r.pod,
      this.release,
      this.chart,
      this.cluster.env,
      r.hostname,
    );
  }

  /** Stops a replica's destination container as the kubelet does (SIGTERM, then SIGKILL). */
  async stopDestination(hostname?: string): Promise<void> {
    const r = this.replica(hostname);
    await r.destination?.process.stop(5000);
    r.destination = undefined;
  }

  private async startReplicaProxy(r: DestinationReplica): Promise<void> {
    if (r.resolvConf === undefined) return;
    r.proxy = await startControlPlaneProxy(
      this.chart,
      this.cluster,
      { deployment: "linkerd-destination", ...r },
      r.resolvConf,
    );
  }

  /** A replica's pod lost at once (SIGKILL to every container: nothing is released). */
  async killReplica(hostname: string): Promise<void> {
    const r = this.replica(hostname);
    const kill = async (p: StartedProcess | undefined) => {
      p?.child.kill("SIGKILL");
      await p?.exited;
    };
    await Promise.all([kill(r.destination?.process), kill(r.policy), kill(r.proxy?.process)]);
    r.destination = undefined;
    r.policy = undefined;
    r.proxy = undefined;
  }

  /** Starts again whatever of a replica was stopped or killed (after a test that did so). */
  async heal(): Promise<void> {
    for (const r of this.replicas) {
      r.policy ??= await startPolicyController(
        r.pod,
        this.release,
        this.chart,
        this.cluster.env,
        r.hostname,
      );
      if (r.destination === undefined) await this.startDestination(r.hostname);
      if (r.proxy === undefined) await this.startReplicaProxy(r);
    }
  }

  diagnostics(): string {
    return [this.identityPod, ...this.replicas.map((r) => r.pod)]
      .map((p) => p.diagnostics())
      .join("\n");
  }

  async close(): Promise<void> {
    for (const r of this.replicas) await r.pod.close();
    await this.identityPod.close();
  }
}
