#!/usr/bin/env node
// Turns the outcomes a run appended to $HOSTILE_OUTCOMES into the Markdown table of
// BENCHMARKS.md ("Hostile clients"):
//
//   HOSTILE_OUTCOMES=/tmp/outcomes.jsonl pnpm test:hostile
//   node tooling/hostile/bin/outcomes-table.mjs /tmp/outcomes.jsonl
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: outcomes-table.mjs <outcomes.jsonl>\n");
  process.exit(2);
}
const mib = (n) => (Number.isFinite(n) ? n.toFixed(0) : "–");
const ms = (n) => n.toFixed(0);
const rows = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const out = [
  "| attack | server | conns | attacker's connections ended | canary calls | errors | p50 ms | p99 ms | max ms | RSS MiB before / peak / after | heap MiB before / after | heap MiB after a full GC, before / after | RSS MiB after a full GC, before / after |",
  "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |",
];
for (const o of rows) {
  const ends = Object.entries(o.ends)
    .sort((a, b) => b[1] - a[1])
    .map(([how, n]) => `${how} ${n}`)
    .join(", ");
  const c = o.canary;
  out.push(
    `| ${o.attack} | ${o.server ?? "ours"} | ${o.connections} | ${ends} | ${c.calls} | ${c.errors.length} | ${ms(c.p50Ms)} | ${ms(c.p99Ms)} | ${ms(c.maxMs)} | ${mib(o.rssMiB.baseline)} / ${mib(o.rssMiB.peak)} / ${mib(o.rssMiB.after)} | ${mib(o.heapMiB.baseline)} / ${mib(o.heapMiB.after)} | ${mib(o.heapMiB.baselineGc)} / ${mib(o.heapMiB.afterGc)} | ${mib(o.rssMiB.baselineGc)} / ${mib(o.rssMiB.afterGc)} |`,
  );
}
process.stdout.write(`${out.join("\n")}\n`);
