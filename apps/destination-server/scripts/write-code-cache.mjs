#!/usr/bin/env node
// The last build step: writes dist/server.cjs.cache, the V8 code cache the binary starts from
// (see src/launch.ts). A cache holds what a run compiled, so this runs the built binary through a
// short life: a folder of manifests, ready, one Get and one GetProfile answered, shut down. The
// binary writes the cache as it exits. A start then skips compiling the bundle and most of what
// a start runs; the code only a real cluster reaches (list and watch) is compiled as before.
//
// The cache is for the node that ran this: another node version, or other V8 flags, refuses it
// and the binary compiles from source as without one.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, DestinationService, GetDestinationSchema } from "@destination/proto";
import * as grpc from "@grpc/grpc-js";

const APP = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(APP, "bin", "destination-server.js");
const CACHE = join(APP, "dist", "server.cjs.cache");
const TIMEOUT_MS = 60_000;

// One Service with one ready endpoint on a meshed pod, its node and a ServiceProfile: enough for
// both RPCs to translate an address and a profile.
const MANIFESTS = `
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: { topology.kubernetes.io/zone: zone-a }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: warmup }
spec:
  clusterIP: 10.96.0.10
  clusterIPs: [10.96.0.10]
  ports: [{ name: http, port: 80, targetPort: 8080, protocol: TCP }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: warmup
  labels: { kubernetes.io/service-name: web }
addressType: IPv4
ports: [{ name: http, port: 8080, protocol: TCP }]
endpoints:
  - addresses: [10.244.0.10]
    conditions: { ready: true }
    nodeName: node-a
    targetRef: { kind: Pod, name: web-1, namespace: warmup }
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: warmup
  labels: { app: web, linkerd.io/control-plane-ns: linkerd }
spec:
  serviceAccountName: web
  nodeName: node-a
  containers:
    - name: linkerd-proxy
      env:
        - { name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR, value: "0.0.0.0:4143" }
        - { name: LINKERD2_PROXY_ADMIN_LISTEN_ADDR, value: "0.0.0.0:4191" }
        - { name: LINKERD2_PROXY_CONTROL_LISTEN_ADDR, value: "0.0.0.0:4190" }
    - name: web
      ports: [{ name: http, containerPort: 8080 }]
status:
  phase: Running
  podIP: 10.244.0.10
  podIPs: [{ ip: 10.244.0.10 }]
  hostIP: 172.18.0.2
  hostIPs: [{ ip: 172.18.0.2 }]
---
apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata: { name: web.warmup.svc.cluster.local, namespace: warmup }
spec:
  routes:
    - name: GET /
      condition: { method: GET, pathRegex: / }
`;

const folder = mkdtempSync(join(tmpdir(), "destination-warmup-"));
writeFileSync(join(folder, "warmup.yaml"), MANIFESTS);
rmSync(CACHE, { force: true });

const child = spawn(
  process.execPath,
  [
    BIN,
    "--manifests",
    folder,
    "--addr",
    "127.0.0.1:0",
    "--metrics-addr",
    "127.0.0.1:0",
    "--log-format",
    "json",
  ],
  {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, DESTINATION_WRITE_CODE_CACHE: "1" },
  },
);
let stderr = "";
const exited = new Promise((resolve) =>
  child.on("exit", (code, signal) => resolve({ code, signal })),
);
const timer = setTimeout(() => fail(`no answer within ${TIMEOUT_MS / 1000} s`), TIMEOUT_MS);

try {
  const grpcPort = await readyPort();
  await answered(grpcPort);
  child.kill("SIGTERM");
  const { code, signal } = await exited;
  if (code !== 0) fail(`the server exited with ${code ?? signal}`);
  if (!existsSync(CACHE)) fail("the server exited without writing the cache");
  process.stdout.write(`code cache: ${CACHE} (${Math.round(statSync(CACHE).size / 1024)} KiB)\n`);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
} finally {
  clearTimeout(timer);
  rmSync(folder, { recursive: true, force: true });
}

function fail(message) {
  // process.exit skips the `finally` above: the folder goes here too.
  child.kill("SIGKILL");
  rmSync(CACHE, { force: true });
  rmSync(folder, { recursive: true, force: true });
  process.stderr.write(`write-code-cache: ${message}\n${stderr}`);
  process.exit(1);
}

/** The gRPC port from the server's "ready" log line. */
function readyPort() {
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      for (const line of stderr.split("\n")) {
        if (!line.startsWith("{")) continue;
        const record = JSON.parse(line);
        if (record.msg === "ready" && record.grpcPort) resolve(record.grpcPort);
      }
    });
    child.on("exit", () => reject(new Error("the server exited before it was ready")));
  });
}

/** Resolves once a Get and a GetProfile for the Service have each had their first answer. */
async function answered(port) {
  const Client = grpc.makeGenericClientConstructor(DestinationService, "Destination");
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const request = create(GetDestinationSchema, {
    scheme: "k8s",
    path: "web.warmup.svc.cluster.local:80",
    contextToken: JSON.stringify({ ns: "warmup", nodeName: "node-a" }),
  });
  const first = (method) =>
    new Promise((resolve, reject) => {
      const call = client[method](request);
      call.once("data", () => {
        call.cancel();
        resolve();
      });
      call.once("error", (err) => {
        if (err.code !== grpc.status.CANCELLED) reject(err);
      });
    });
  try {
    await Promise.all([first("get"), first("getProfile")]);
  } finally {
    client.close();
  }
}
