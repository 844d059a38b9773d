// k8s-discovery's shared backend suite on the cluster backend against a real kube-apiserver.
import { describeBackendSuite } from "@destination/test-support/backend-suite";
import { afterAll, beforeAll } from "vitest";
import { clusterHarnessFactory } from "../src/cluster-harness.js";
import { type IntegrationEnv, removeKubernetesService, startIntegrationEnv } from "../src/env.js";

let ctx: IntegrationEnv | undefined;

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  // The suite compares the cluster's whole contents with its fixture.
  await removeKubernetesService(ctx);
});

afterAll(async () => {
  await ctx?.stop();
});

describeBackendSuite(
  "cluster (real kube-apiserver)",
  clusterHarnessFactory(() => {
    if (!ctx) throw new Error("the API server did not start");
    return ctx;
  }),
  { eventTimeoutMs: 15_000 },
);
