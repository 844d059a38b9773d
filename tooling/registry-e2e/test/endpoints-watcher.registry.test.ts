// @destination/endpoints-watcher as a user gets it: installed alone from the registry with npm,
// and in a second project with pnpm; the README's example type-checked with `tsc --strict` (no
// skipLibCheck) and run against a real kube-apiserver, where the test makes the changes the
// README describes and compares what the example prints with what the README says it prints.
import { join } from "node:path";
import { type KubeEnv, startKubeEnv } from "@destination/k8s-env";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Client } from "../src/project.js";
import { installReadmeExample, interruptExample } from "../src/readme-example.js";
import { readmeOutput } from "../src/workspace.js";

const registry = inject("registry");

/** The Service of the README's output, `default/web:80`, targeting port 8080 of its endpoints. */
const SERVICE = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "default" },
  spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] },
};

/** The Service's one EndpointSlice (no controller runs: the test is the controller). */
function slice(...ips: string[]) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: "web-registry-e2e",
      namespace: "default",
      labels: { "kubernetes.io/service-name": "web" },
    },
    addressType: "IPv4",
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  };
}

let kube: KubeEnv | undefined;

beforeAll(async () => {
  kube = await startKubeEnv();
  await kube.apply([SERVICE]);
}, 300_000);

afterAll(async () => {
  await kube?.stop();
});

describe.each<Client>(["npm", "pnpm"])("%s, in a project of its own", (client) => {
  it("installs the package alone, type-checks the README example and runs it", async () => {
    const env = kube as KubeEnv;
    const { project, readme } = await installReadmeExample(
      "@destination/endpoints-watcher",
      "watch.mts",
      { dir: join(registry.dir, `endpoints-watcher-${client}`), client, env: registry.env },
    );

    await env.apply([slice("10.1.0.1")]);
    const example = project.node(["watch.mts", "default", "web", "80"], {
      KUBECONFIG: env.kubeconfigPath,
    });
    try {
      await example.waitFor(/^\+ 10\.1\.0\.1:8080$/m, 60_000);
      // The one endpoint replaced by two: the adds come first, then the remove.
      await env.apply([slice("10.1.0.2", "10.1.0.3")]);
      await example.waitFor(/^- 10\.1\.0\.1:8080$/m, 60_000);
      await interruptExample(example);
      expect(example.stdout().trimEnd().split("\n")).toEqual(
        readmeOutput(readme, "watch.mts prints"),
      );
    } finally {
      await example.stop();
    }
  });
});
