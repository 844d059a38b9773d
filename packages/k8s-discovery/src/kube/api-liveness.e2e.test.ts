// The silence bound (api-liveness.ts) against real sockets: a server that accepts and never
// answers, a list body that stops half way, a watch that goes quiet. Each test hangs (and
// fails on the test timeout) if the check it covers is turned off.

import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { KubeObject, Logger } from "@destination/core";
import { ManualClock } from "@destination/test-support/manual-clock";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { RESOURCE_KINDS } from "../resource-kind.js";
import { watchSilenceMs } from "./api-liveness.js";
import { loadKubeConfig } from "./kube-config.js";
import { ApiSilenceError, KubeHttpClient } from "./kube-http.js";
import { Reflector, type WatchStore } from "./reflector.js";

const SILENCE_MS = 300;
// Bound checks only: the check must fire within the bound plus this much.
const MARGIN_MS = 3_000;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function kubeconfigFor(port: number) {
  return loadKubeConfig({
    kubeconfigYaml: [
      "apiVersion: v1",
      "kind: Config",
      "current-context: test",
      "clusters:",
      `- name: test\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
      "users:",
      "- name: tester\n  user:\n    token: test-token",
      "contexts:",
      "- name: test\n  context:\n    cluster: test\n    user: tester",
    ].join("\n"),
  });
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Accepts every connection and never writes a byte. */
async function silentListener(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return listen(server);
}

/** An HTTP server answering each request with `handle`, the nth request counted from 0. */
async function scriptedServer(
  handle: (n: number, req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ port: number; requests: URL[] }> {
  const requests: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(url);
    handle(requests.length - 1, req, res);
  });
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: await listen(server), requests };
}

function recordingStore() {
  const lists: KubeObject[][] = [];
  const applied: KubeObject[] = [];
  const store: WatchStore<KubeObject> = {
    apply: (obj) => void applied.push(obj),
    remove: () => undefined,
    replace: (objects) => void lists.push([...objects]),
  };
  return { store, lists, applied };
}

function recordingLogger() {
  const warnings: string[] = [];
  const log = () => {};
  const logger: Logger = {
    debug: log,
    info: log,
    error: log,
    warn: (msg, fields) => void warnings.push(`${msg} ${JSON.stringify(fields ?? {})}`),
  };
  return { logger, warnings };
}

const profile = (name: string, rv: string) => ({
  apiVersion: "linkerd.io/v1alpha2",
  kind: "ServiceProfile",
  metadata: { name, namespace: "shop", resourceVersion: rv },
  spec: {},
});

function reflector(port: number, store: WatchStore<KubeObject>, clock?: ManualClock) {
  const { logger, warnings } = recordingLogger();
  const r = new Reflector<KubeObject>({
    client: new KubeHttpClient(kubeconfigFor(port), { silenceTimeoutMs: SILENCE_MS }),
    resource: RESOURCE_KINDS.ServiceProfile,
    metadataOnly: false,
    store,
    logger,
    metrics: { watchRestarted() {}, relisted() {}, errored() {}, eventReceived() {} },
    backoff: { baseMs: 1, capMs: 1 },
    silenceTimeoutMs: SILENCE_MS,
    ...(clock === undefined ? {} : { clock }),
  });
  closers.push(() => r.stop());
  return { reflector: r, warnings };
}

describe("the API server silence bound", () => {
  it("fails a request that gets no response headers within the bound", async () => {
    const port = await silentListener();
    const client = new KubeHttpClient(kubeconfigFor(port), { silenceTimeoutMs: SILENCE_MS });
    const startedAt = performance.now();
    await expect(client.json({ path: "/api" })).rejects.toBeInstanceOf(ApiSilenceError);
    expect(performance.now() - startedAt).toBeLessThan(SILENCE_MS + MARGIN_MS);
  });

  it("gives up a list whose body pauses past the bound, and lists again", async () => {
    const { port, requests } = await scriptedServer((n, _req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const body = JSON.stringify({
        metadata: { resourceVersion: "5" },
        items: [profile("a", "5")],
      });
      if (n === 0)
        res.write(body.slice(0, 20)); // then nothing, the connection kept open
      else if (requests[n]?.searchParams.get("watch") === "true")
        res.write(""); // idle watch
      else res.end(body);
    });
    const { store, lists } = recordingStore();
    const { reflector: r, warnings } = reflector(port, store);
    r.start();
    await eventually(() => expect(lists).toHaveLength(1));
    expect(lists[0]?.map((o) => o.metadata.name)).toEqual(["a"]);
    expect(warnings.join("\n")).toContain("the list body paused for 0.3 s");
  });

  it("waits for a list's headers past the bound, as a big list is encoded whole first", async () => {
    const { port } = await scriptedServer((_n, req, res) => {
      if (req.url?.includes("watch=true")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("");
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ metadata: { resourceVersion: "5" }, items: [profile("a", "5")] }));
      }, 3 * SILENCE_MS);
    });
    const { store, lists } = recordingStore();
    const { reflector: r, warnings } = reflector(port, store);
    r.start();
    await eventually(() => expect(lists).toHaveLength(1));
    expect(warnings).toEqual([]);
  });

  it("destroys a watch that shows no life within its bound and resumes it from its resourceVersion", async () => {
    const clock = new ManualClock();
    const { port, requests } = await scriptedServer((n, req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url?.includes("watch=true")) {
        // The first watch brings an event at 6 and a bookmark at 7 in one write, then nothing;
        // the second stays open too. The event shows the test when the write was read.
        if (n === 1) {
          const added = { type: "ADDED", object: profile("web", "6") };
          const bookmark = {
            type: "BOOKMARK",
            object: { kind: "ServiceProfile", metadata: { resourceVersion: "7" } },
          };
          res.write(`${JSON.stringify(added)}\n${JSON.stringify(bookmark)}\n`);
        } else res.write("");
        return;
      }
      res.end(JSON.stringify({ metadata: { resourceVersion: "5" }, items: [] }));
    });
    const { store, lists, applied } = recordingStore();
    const { reflector: r, warnings } = reflector(port, store, clock);
    r.start();
    await eventually(() => expect(requests).toHaveLength(2));
    expect(requests[1]?.searchParams.get("resourceVersion")).toBe("5");
    // The watch's write was read (on a loaded machine it can come after the test's next step).
    await eventually(() => expect(applied).toHaveLength(1));
    // Short of the bound the watch stays.
    await eventually(() => expect(clock.pendingTimers).toBe(1));
    clock.advance(watchSilenceMs(SILENCE_MS) - 1);
    expect(requests).toHaveLength(2);
    clock.advance(1);
    // Destroyed and resumed after the backoff (1 ms on the same clock), from the bookmark's
    // version, without a list.
    await eventually(() => {
      clock.advance(1);
      expect(requests).toHaveLength(3);
    });
    expect(requests[2]?.searchParams.get("watch")).toBe("true");
    expect(requests[2]?.searchParams.get("resourceVersion")).toBe("7");
    expect(lists).toHaveLength(1);
    expect(warnings.join("\n")).toContain("no event, bookmark or byte from the API server");
  });
});
