// What the chart's control plane runs, as processes: the linkerd-identity pod (upstream's
// identity controller) and each replica of the linkerd-destination pod (the destination service
// under test beside upstream's policy controller; one replica, or three in the HA render), each
// pod in a network namespace of its own, against the suite's API server. Proxies reach the gRPC
// ports through the Unix sockets in `endpoints`.
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";
import {
  DESTINATION_GRPC_PORT,
  type DestinationKind,
  type DestinationProcess,
  startDestination,
} from "./destination-controller.js";
import { IDENTITY_GRPC_PORT, startIdentityController } from "./identity-controller.js";
import type { KubeCluster } from "./kube-cluster.js";
import { PodNamespace } from "./pod-namespace.js";
import { POLICY_GRPC_PORT, startPolicyController } from "./policy-controller.js";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

/** Unix sockets reaching the control plane's gRPC ports, one per destination replica. */
export interface ControlPlaneEndpoints {
  readonly destination: readonly string[];
  readonly policy: readonly string[];
  readonly identity: string;
}

/** One pod of the linkerd-destination Deployment. */
interface DestinationReplica {
  /** The pod's name, its HOSTNAME (upstream's Lease holder identity). */
  readonly hostname: string;
  readonly pod: PodNamespace;
  destination: DestinationProcess | undefined;
  policy: StartedProcess | undefined;
}

const REPLICA_SUFFIXES = ["x2x7q", "b8kfm", "q4zwd", "m9tcl", "h5rvn"];

export class ControlPlane {
  private constructor(
    readonly kind: DestinationKind,
    private readonly release: LinkerdRelease,
    private readonly chart: RenderedChart,
    private readonly cluster: KubeCluster,
    private readonly identityPod: PodNamespace,
    private readonly replicas: readonly DestinationReplica[],
    readonly endpoints: ControlPlaneEndpoints,
  ) {}

  static async start(
    kind: DestinationKind,
    release: LinkerdRelease,
    chart: RenderedChart,
    cluster: KubeCluster,
  ): Promise<ControlPlane> {
    const pods: PodNamespace[] = [];
    try {
      const identityPod = await PodNamespace.create("linkerd-identity", cluster.env);
      pods.push(identityPod);
      const count = chart.deployment("linkerd-destination").spec.replicas ?? 1;
      const replicas: DestinationReplica[] = [];
      for (const suffix of REPLICA_SUFFIXES.slice(0, count)) {
        const pod = await PodNamespace.create("linkerd-destination", cluster.env);
        pods.push(pod);
        replicas.push({
          hostname: `linkerd-destination-7d9f8b6c4-${suffix}`,
          pod,
          destination: undefined,
          policy: undefined,
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
      const cp = new ControlPlane(kind, release, chart, cluster, identityPod, replicas, endpoints);
      for (const r of replicas) await cp.startDestination(r.hostname);
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

  /** A replica's pod lost at once (SIGKILL to every container: nothing is released). */
  async killReplica(hostname: string): Promise<void> {
    const r = this.replica(hostname);
    const kill = async (p: StartedProcess | undefined) => {
      p?.child.kill("SIGKILL");
      await p?.exited;
    };
    await Promise.all([kill(r.destination?.process), kill(r.policy)]);
    r.destination = undefined;
    r.policy = undefined;
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
