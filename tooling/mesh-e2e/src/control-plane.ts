// What the chart's control plane runs, as processes: the linkerd-identity pod (upstream's
// identity controller) and the linkerd-destination pod (the destination service under test
// beside upstream's policy controller), each in a network namespace of its own, against the
// suite's API server. Proxies reach their gRPC ports through the Unix sockets in `endpoints`.
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

/** Unix sockets reaching the control plane's gRPC ports (what the chart's Services name). */
export interface ControlPlaneEndpoints {
  readonly destination: string;
  readonly policy: string;
  readonly identity: string;
}

/** A destination pod's name, as its HOSTNAME (the Lease holder's identity upstream). */
const DESTINATION_POD = "linkerd-destination-7d9f8b6c4-x2x7q";

export class ControlPlane {
  private destination: DestinationProcess | undefined;

  private constructor(
    readonly kind: DestinationKind,
    private readonly release: LinkerdRelease,
    private readonly chart: RenderedChart,
    private readonly cluster: KubeCluster,
    private readonly identityPod: PodNamespace,
    private readonly destinationPod: PodNamespace,
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
      const destinationPod = await PodNamespace.create("linkerd-destination", cluster.env);
      pods.push(destinationPod);
      // Started side by side: each waits only on the API server.
      await Promise.all([
        startIdentityController(identityPod, release, chart, cluster.env),
        startPolicyController(destinationPod, release, chart, cluster.env),
      ]);
      const endpoints = {
        destination: await destinationPod.expose(DESTINATION_GRPC_PORT),
        policy: await destinationPod.expose(POLICY_GRPC_PORT),
        identity: await identityPod.expose(IDENTITY_GRPC_PORT),
      };
      const cp = new ControlPlane(
        kind,
        release,
        chart,
        cluster,
        identityPod,
        destinationPod,
        endpoints,
      );
      await cp.startDestination();
      return cp;
    } catch (err) {
      for (const p of pods) {
        console.error(p.diagnostics());
        await p.close();
      }
      throw err;
    }
  }

  /** The destination service's process (undefined while it is stopped). */
  get destinationProcess(): StartedProcess | undefined {
    return this.destination?.process;
  }

  async startDestination(): Promise<void> {
    if (this.destination !== undefined) throw new Error("the destination service is running");
    this.destination = await startDestination(
      this.kind,
      this.destinationPod,
      this.release,
      this.chart,
      this.cluster.env,
      DESTINATION_POD,
    );
  }

  /** Stops the destination container as the kubelet does (SIGTERM, then SIGKILL). */
  async stopDestination(): Promise<void> {
    await this.destination?.process.stop(5000);
    this.destination = undefined;
  }

  diagnostics(): string {
    return [this.identityPod.diagnostics(), this.destinationPod.diagnostics()].join("\n");
  }

  async close(): Promise<void> {
    await this.destinationPod.close();
    await this.identityPod.close();
  }
}
