// @destination/proto as a user gets it: installed alone from the registry, the README's gRPC
// client type-checked with `tsc --strict` (no skipLibCheck) and run against the destination-server
// built in this workspace, serving a temp copy of the example manifests; a manifest written while
// it runs is the change the README's output shows.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { installReadmeExample, interruptExample } from "../src/readme-example.js";
import { type RunningServer, startServer } from "../src/server.js";
import { readmeOutput } from "../src/workspace.js";

const registry = inject("registry");

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
  const { project, readme } = await installReadmeExample("@destination/proto", "get.mts", {
    dir: join(registry.dir, "proto-npm"),
    client: "npm",
    env: registry.env,
  });

  const example = project.node(["get.mts", "web-svc.emojivoto.svc.cluster.local:80", running.addr]);
  try {
    await example.waitFor(/^\+ 10\.244\.1\.10:8080 /m, 60_000);
    writeFileSync(join(running.manifests, "emojivoto", "web-second-slice.yaml"), SECOND_SLICE);
    await example.waitFor(/^\+ 10\.244\.1\.12:8080$/m, 60_000);
    await interruptExample(example);
    expect(example.stdout().trimEnd().split("\n")).toEqual(readmeOutput(readme, "get.mts prints"));
  } finally {
    await example.stop();
  }
});
