// @destination/proto as a user gets it: installed alone from the registry, the README's gRPC
// client type-checked with `tsc --strict` (no skipLibCheck) and run against the destination-server
// built in this workspace, serving a temp copy of the example manifests; a manifest written while
// it runs is the change the README's output shows.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createProject } from "../src/project.js";
import { type RunningServer, startServer } from "../src/server.js";
import {
  ROOT,
  readmeExample,
  readmeInstall,
  readmeOutput,
  readmeTypecheck,
  workspacePackage,
} from "../src/workspace.js";

const registry = inject("registry");
const pkg = workspacePackage("@destination/proto");
const README = join(ROOT, pkg.dir, "README.md");

/** A second EndpointSlice of web-svc, with one endpoint and no pod behind it. */
const SECOND_SLICE = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-svc-registry-e2e
  namespace: emojivoto
  labels: { kubernetes.io/service-name: web-svc }
addressType: IPv4
ports: [{ name: http, port: 8080, protocol: TCP }]
endpoints:
  - addresses: [10.244.1.12]
    conditions: { ready: true }
`;

let server: RunningServer | undefined;

beforeAll(async () => {
  server = await startServer(join(registry.dir, "proto-server"));
});

afterAll(async () => {
  await server?.stop();
});

it("npm: installs the package alone, type-checks the README's client and runs it against the server", async () => {
  const running = server as RunningServer;
  const install = readmeInstall(README);
  expect(install).toEqual([pkg.name]);
  const project = await createProject(
    join(registry.dir, "proto-npm"),
    "npm",
    install,
    registry.env,
  );
  expect(project.installedManifest(pkg.name).version).toBe(pkg.version);
  project.write("get.mts", readmeExample(README, "get.mts"));
  await project.tsc(readmeTypecheck(README));

  const example = project.node(["get.mts", "web-svc.emojivoto.svc.cluster.local:80", running.addr]);
  try {
    await example.waitFor(/^\+ 10\.244\.1\.10:8080 /m, 60_000);
    writeFileSync(join(running.manifests, "emojivoto", "web-second-slice.yaml"), SECOND_SLICE);
    await example.waitFor(/^\+ 10\.244\.1\.12:8080$/m, 60_000);
    example.child.kill("SIGINT");
    const exit = await Promise.race([
      example.exited,
      new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000)),
    ]);
    expect(exit, `after Ctrl-C:\n${example.output()}`).toEqual({ code: 0, signal: null });
    expect(example.stdout().trimEnd().split("\n")).toEqual(readmeOutput(README, "get.mts prints"));
  } finally {
    await example.stop();
  }
});
