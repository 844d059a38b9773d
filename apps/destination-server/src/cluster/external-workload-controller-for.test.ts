import { noopMetrics } from "@destination/core";
import { ExternalWorkloadController } from "@destination/external-workload-controller";
import { type KubeApi, MemoryCluster } from "@destination/k8s-discovery";
import { describe, expect, it } from "vitest";
import { resolveOptions } from "../config/flag-options.js";
import { createServerLogger } from "../logging/server-logger.js";
import {
  externalWorkloadControllerFor,
  HOSTNAME_MISSING,
} from "./external-workload-controller-for.js";
import type { OpenedCluster } from "./open-cluster.js";

const api: KubeApi = { json: () => Promise.reject(new Error("no API server in this test")) };
const logger = createServerLogger({ format: "json", sink: { write: () => {} } });
const kube: OpenedCluster = {
  cluster: new MemoryCluster(),
  owned: true,
  description: "Kubernetes API",
  api,
};
const manifests: OpenedCluster = {
  cluster: new MemoryCluster(),
  owned: true,
  description: "manifests in x",
};

const controllerFor = (opened: OpenedCluster, options: Parameters<typeof resolveOptions>[0]) =>
  externalWorkloadControllerFor(
    opened,
    resolveOptions({ logger, ...options }),
    noopMetrics,
    logger,
  );

describe("externalWorkloadControllerFor", () => {
  it("runs the controller on a Kubernetes API backend with slices and a HOSTNAME, as upstream", () => {
    expect(controllerFor(kube, { hostname: "linkerd-destination-0" })).toBeInstanceOf(
      ExternalWorkloadController,
    );
  });

  it("fails the start with upstream's message when HOSTNAME is unset", () => {
    expect(() => controllerFor(kube, { hostname: null })).toThrow(HOSTNAME_MISSING);
    expect(() => controllerFor(kube, { hostname: "" })).toThrow(HOSTNAME_MISSING);
  });

  it("runs none with -enable-endpoint-slices=false, as upstream", () => {
    expect(
      controllerFor(kube, { hostname: null, enableEndpointSlices: false, enableIpv6: false }),
    ).toBeUndefined();
  });

  it("runs none on a manifests folder or an in-process cluster, whatever HOSTNAME says", () => {
    expect(controllerFor(manifests, { hostname: "x" })).toBeUndefined();
    expect(controllerFor(manifests, { hostname: null })).toBeUndefined();
  });

  it("runs none for a program that names no hostname", () => {
    expect(controllerFor(kube, {})).toBeUndefined();
  });
});
