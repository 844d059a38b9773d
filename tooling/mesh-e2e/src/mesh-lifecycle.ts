// The lifecycle every scenario shares: one API server per test file (with the release's CRDs and
// the chart's `linkerd` namespace objects), one control plane per destination service under test
// (a `describe.each(DESTINATIONS)` block), and fresh workloads per test, ended after it (the
// logs of everything printed when it failed).
import { afterAll, afterEach, beforeAll } from "vitest";
import { type Addressing, ControlPlane } from "./control-plane.js";
import type { DestinationKind } from "./destination-controller.js";
import { KubeCluster } from "./kube-cluster.js";
import { type LinkerdRelease, linkerdRelease } from "./release.js";
import { RenderedChart } from "./rendered-chart.js";
import { Workloads } from "./workloads.js";

export interface MeshFile {
  readonly release: LinkerdRelease;
  readonly chart: RenderedChart;
  readonly addressing: Addressing;
  cluster(): Promise<KubeCluster>;
}

/**
 * The file's API server, started on first use and stopped after the file; the control plane
 * from the chart's default render, or its high-availability one (`ha`: three destination
 * replicas).
 */
export function meshFile({
  ha = false,
  addressing = addressingFromEnv(),
}: {
  ha?: boolean;
  addressing?: Addressing;
} = {}): MeshFile {
  const release = linkerdRelease();
  const chart = RenderedChart.read(ha ? release.controlPlaneHaYaml : release.controlPlaneYaml);
  let cluster: Promise<KubeCluster> | undefined;
  afterAll(async () => {
    await (await cluster?.catch(() => undefined))?.stop();
  });
  return {
    release,
    chart,
    addressing,
    cluster: () => {
      cluster ??= KubeCluster.start(release, chart);
      return cluster;
    },
  };
}

export interface Mesh {
  readonly controlPlane: ControlPlane;
  readonly cluster: KubeCluster;
  /** The running test's workloads (made on first call, closed after the test). */
  workloads(): Promise<Workloads>;
}

/** Call inside a describe block: the control plane with `kind` as its destination service. */
export function meshWith(file: MeshFile, kind: DestinationKind): Mesh {
  let controlPlane: ControlPlane | undefined;
  let cluster: KubeCluster | undefined;
  let workloads: Workloads | undefined;
  beforeAll(async () => {
    cluster = await file.cluster();
    controlPlane = await ControlPlane.start(
      kind,
      file.release,
      file.chart,
      cluster,
      file.addressing,
    );
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail") {
      console.error(workloads?.diagnostics() ?? "");
      console.error(controlPlane?.diagnostics() ?? "");
    }
    await workloads?.close();
    workloads = undefined;
    await controlPlane?.heal();
  });
  afterAll(async () => {
    await controlPlane?.close();
  });
  const started = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`meshWith: the ${what} is not started`);
    return v;
  };
  return {
    get controlPlane() {
      return started(controlPlane, "control plane");
    },
    get cluster() {
      return started(cluster, "cluster");
    },
    async workloads() {
      workloads ??= await Workloads.create(
        started(controlPlane, "control plane"),
        started(cluster, "cluster"),
        file.chart,
        file.release,
      );
      return workloads;
    },
  };
}

/** MESH_ADDRESSING=chart (the default) or loopback (see Addressing in control-plane.ts). */
function addressingFromEnv(): Addressing {
  const v = process.env.MESH_ADDRESSING ?? "chart";
  if (v !== "loopback" && v !== "chart") throw new Error(`MESH_ADDRESSING=${v}: loopback or chart`);
  return v;
}
