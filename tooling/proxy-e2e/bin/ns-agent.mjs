#!/usr/bin/env node
// Runs inside a test's network namespace (`ip netns exec NS node ns-agent.mjs`) and does there
// what the test process, which stays in the root namespace, cannot: serve the fake pods on
// their pod IPs, and bridge sockets between the namespaces through Unix sockets (a Unix socket
// path is reachable from every network namespace). Plain JavaScript, so that it starts under
// plain node before any build. One JSON command per stdin line, one JSON reply per stdout line:
//   {"id":1,"op":"http-pod","name":"web-1","host":"10.244.0.11","port":8080,"mode":"ok"}
//   {"id":1,"ok":true}  or  {"id":1,"ok":false,"error":"..."}
// Ops: http-pod (mode ok | flaky: every other request is a 500 | slow: answers after delayMs),
// tcp-pod (writes its name and a newline, then echoes bytes), listen (TCP in here -> Unix
// socket out there, or the first of several that accepts), forward (Unix socket out there ->
// TCP in here), dns (A records for the names in `records`, over UDP), close (stops one by name).
import { createServer as createHttpServer } from "node:http";
import { connect, createServer } from "node:net";
import { createInterface } from "node:readline";
import { serveDns } from "./dns-responder.mjs";

/** @type {Map<string, import("node:net").Server>} */
const servers = new Map();

/** Pipes two sockets both ways; either side closing or failing ends both. */
function splice(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on("error", end);
  b.on("error", end);
  a.on("close", end);
  b.on("close", end);
}

function httpPod({ name, mode, delayMs = 0 }) {
  let count = 0;
  return createHttpServer((req, res) => {
    count += 1;
    const n = count;
    req.resume();
    req.on("end", () => {
      const body = JSON.stringify({
        pod: name,
        n,
        clientId: req.headers["l5d-client-id"] ?? null,
        path: req.url,
      });
      const answer = () => {
        const status = mode === "flaky" && n % 2 === 1 ? 500 : 200;
        res.writeHead(status, { "content-type": "application/json", "x-pod": name });
        res.end(body);
      };
      if (mode === "slow") setTimeout(answer, delayMs);
      else answer();
    });
  });
}

function tcpPod({ name }) {
  return createServer((socket) => {
    socket.on("error", () => socket.destroy());
    socket.write(`${name}\n`);
    socket.pipe(socket);
  });
}

/**
 * With `sockets` (several), each connection goes to the next one that accepts it, round-robin:
 * a Service's ClusterIP over its replicas, as kube-proxy does, skipping one that is gone.
 */
function listenOp({ socket, sockets = [socket] }) {
  let next = 0;
  return createServer((inbound) => {
    inbound.pause();
    const first = next++;
    const attempt = (i) => {
      if (i >= sockets.length) return inbound.destroy();
      const outbound = connect({ path: sockets[(first + i) % sockets.length] });
      outbound.once("error", () => attempt(i + 1));
      outbound.once("connect", () => {
        outbound.removeAllListeners("error");
        splice(inbound, outbound);
        inbound.resume();
      });
    };
    attempt(0);
  });
}

function forwardOp({ host, port }) {
  return createServer((inbound) => splice(inbound, connect({ host, port })));
}

const makers = { "http-pod": httpPod, "tcp-pod": tcpPod, listen: listenOp, forward: forwardOp };

async function handle(cmd) {
  if (cmd.op === "close") {
    const server = servers.get(cmd.name);
    if (server === undefined) throw new Error(`nothing named ${cmd.name}`);
    servers.delete(cmd.name);
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(() => resolve()));
    return;
  }
  if (cmd.op === "dns") {
    if (servers.has(cmd.name)) throw new Error(`${cmd.name} exists`);
    const dns = await serveDns(cmd.host, cmd.port, cmd.records);
    servers.set(cmd.name, { close: (done) => dns.close(done) });
    return;
  }
  const make = makers[cmd.op];
  if (make === undefined) throw new Error(`unknown op ${cmd.op}`);
  if (servers.has(cmd.name)) throw new Error(`${cmd.name} exists`);
  const server = make(cmd);
  // Connections a closed pod still holds must end with it, as when a pod goes away.
  const open = new Set();
  server.on("connection", (s) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  server.closeAllConnections = () => {
    for (const s of open) s.destroy();
  };
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    if (cmd.op === "forward") server.listen(cmd.socket, resolve);
    else server.listen(cmd.port, cmd.host, resolve);
  });
  servers.set(cmd.name, server);
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch {
    process.stdout.write(`${JSON.stringify({ id: null, ok: false, error: "bad json" })}\n`);
    return;
  }
  handle(cmd).then(
    () => process.stdout.write(`${JSON.stringify({ id: cmd.id, ok: true })}\n`),
    (err) =>
      process.stdout.write(`${JSON.stringify({ id: cmd.id, ok: false, error: String(err) })}\n`),
  );
});
// The test closing stdin (or dying) ends the agent and everything it serves.
lines.on("close", () => process.exit(0));
