#!/usr/bin/env node
// The canary: a well-behaved client in a process of its own (so the attacker's work in the test
// process cannot slow it down), on connections of its own. Every 100 ms a Health/Check and a Get
// whose first Update it waits for. Commands on stdin, one per line: "start", "stop" (answers
// one JSON line with the calls since the last stop), "exit".
//
//   node bin/canary.mjs <port> <authority> [--no-health]   (upstream serves no gRPC health)
import { createInterface } from "node:readline";
import {
  create,
  GetDestinationSchema,
  HealthCheckRequestSchema,
  HealthService,
} from "@destination/proto";
import { DestinationClient } from "@destination/proto/client";
import * as grpc from "@grpc/grpc-js";

const [port, authority, healthFlag] = process.argv.slice(2);
const withHealth = healthFlag !== "--no-health";
const INTERVAL_MS = 100;
/** A call slower than this counts as an error, not as a latency. */
const CALL_DEADLINE_MS = 5_000;

const address = `127.0.0.1:${port}`;
const options = { "grpc.use_local_subchannel_pool": 1 };
const insecure = grpc.credentials.createInsecure();
const HealthClient = grpc.makeGenericClientConstructor(HealthService, "grpc.health.v1.Health");
const health = new HealthClient(address, insecure, options);
const destination = new DestinationClient(address, insecure, options);

let latencies = [];
let errors = [];
const inFlight = new Set();
let timer;

function check() {
  const started = performance.now();
  return new Promise((resolve) => {
    health.check(
      create(HealthCheckRequestSchema, {}),
      { deadline: Date.now() + CALL_DEADLINE_MS },
      (err) => {
        if (err) errors.push(`Health/Check: ${err.code} ${err.details}`);
        else latencies.push(performance.now() - started);
        resolve();
      },
    );
  });
}

function get() {
  const started = performance.now();
  return new Promise((resolve) => {
    const call = destination.get(create(GetDestinationSchema, { scheme: "k8s", path: authority }), {
      deadline: Date.now() + CALL_DEADLINE_MS,
    });
    let done = false;
    const finish = (error) => {
      if (done) return;
      done = true;
      if (error) errors.push(error);
      else latencies.push(performance.now() - started);
      resolve();
    };
    call.on("data", () => {
      finish();
      call.cancel();
    });
    call.on("error", (err) => finish(`Get: ${err.code} ${err.details}`));
    call.on("end", () => finish("Get: the stream ended before its first Update"));
  });
}

function round() {
  const p = Promise.all(withHealth ? [check(), get()] : [get()]);
  inFlight.add(p);
  p.finally(() => inFlight.delete(p));
  return p;
}

async function report() {
  await Promise.all(inFlight);
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const out = {
    calls: sorted.length + errors.length,
    errors,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1) ?? 0,
  };
  latencies = [];
  errors = [];
  return out;
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line === "start") {
    // A first round at once: the connections exist before the attack starts.
    await round();
    timer = setInterval(round, INTERVAL_MS);
    process.stdout.write("started\n");
  } else if (line === "stop") {
    clearInterval(timer);
    process.stdout.write(`${JSON.stringify(await report())}\n`);
  } else if (line === "exit") {
    break;
  }
}
health.close();
destination.close();
process.exit(0);
