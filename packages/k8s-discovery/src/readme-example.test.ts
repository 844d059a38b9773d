import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { createManifestsCluster } from "./index.js";

// The README's example, run as written against a folder with two pods and a Deployment.
it("README example: load a folder of manifests and print pods by IP", async () => {
  const dir = await mkdtemp(join(tmpdir(), "readme-"));
  await writeFile(
    join(dir, "web.yaml"),
    `apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop}
status: {phase: Running, podIP: 10.0.0.1}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, namespace: shop}
status: {phase: Running, podIP: 10.0.0.2}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
`,
  );
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args) => {
    printed.push(args.join(" "));
  });
  try {
    // --- example start
    const cluster = createManifestsCluster({ dir });
    await cluster.start();
    await cluster.whenSynced();
    for (const pod of cluster.pods.list()) {
      const ip = pod.status?.podIP ?? "";
      const byIp = cluster.indexes.podsByIp(ip).map((p) => p.metadata.name);
      console.log(ip, "->", byIp.join(", "));
    }
    await cluster.stop();
    // --- example end
  } finally {
    log.mockRestore();
    await rm(dir, { recursive: true, force: true });
  }
  expect(printed.sort()).toEqual(["10.0.0.1 -> web-1", "10.0.0.2 -> web-2"]);
});
