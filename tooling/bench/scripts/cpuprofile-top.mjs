#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `pnpm bench --cpu-prof DIR`): self and inclusive time per
// function, heaviest first. Usage: node scripts/cpuprofile-top.mjs FILE [--top N] [--filter RE]
import { readFileSync } from "node:fs";

const [file, ...rest] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: cpuprofile-top.mjs FILE [--top N] [--filter REGEX]\n");
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : dflt;
};
const top = Number(opt("--top", "40"));
const filter = new RegExp(opt("--filter", "."));

const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Sample durations: timeDeltas[i] is the time before sample i.
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = deltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const key = (n) => {
  const f = n.callFrame;
  const url = f.url
    .replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "")
    .replace(/^file:\/\/.*\/(apps|packages|tooling)\//, "$1/");
  return `${f.functionName || "(anonymous)"} ${url}:${f.lineNumber + 1}`;
};
const self = new Map();
const incl = new Map();
for (const [id, us] of selfUs) {
  const n = nodes.get(id);
  self.set(key(n), (self.get(key(n)) ?? 0) + us);
  // Inclusive: count once per distinct function on the stack.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(nodes.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms`);
for (const [title, map] of [
  ["self", self],
  ["inclusive", incl],
]) {
  console.log(`\n-- ${title} --`);
  const rows = [...map]
    .filter(([k]) => filter.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [k, us] of rows) console.log(`${ms(us)} ${pct(us)}  ${k}`);
}
