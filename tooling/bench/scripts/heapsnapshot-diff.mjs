#!/usr/bin/env node
// Self size and count per constructor in a V8 heap snapshot, or the growth between two
// (from `pnpm bench --heap-snapshot DIR`). Usage:
//   node scripts/heapsnapshot-diff.mjs AFTER.heapsnapshot [BEFORE.heapsnapshot] [--top N]
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const topIndex = argv.indexOf("--top");
const top = topIndex >= 0 ? Number(argv[topIndex + 1]) : 40;
const files = argv.filter((a, i) => !a.startsWith("--") && (topIndex < 0 || i !== topIndex + 1));
if (files.length === 0) {
  process.stderr.write("usage: heapsnapshot-diff.mjs AFTER [BEFORE] [--top N]\n");
  process.exit(2);
}

function summarize(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf("type");
  const iName = fields.indexOf("name");
  const iSize = fields.indexOf("self_size");
  const byName = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    let name = snap.strings[snap.nodes[i + iName]];
    if (type !== "object" && type !== "closure") name = `(${type})`;
    else if (type === "closure") name = "(closure)";
    const size = snap.nodes[i + iSize];
    total += size;
    const entry = byName.get(name) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += size;
    byName.set(name, entry);
  }
  return { byName, total };
}

const after = summarize(files[0]);
const before = files[1] !== undefined ? summarize(files[1]) : { byName: new Map(), total: 0 };
const mb = (b) => `${(b / 1024 / 1024).toFixed(2).padStart(8)} MiB`;
console.log(
  `total self size: ${mb(after.total)} (before: ${mb(before.total)}, growth ${mb(after.total - before.total)})`,
);
const rows = [...after.byName].map(([name, a]) => {
  const b = before.byName.get(name) ?? { count: 0, size: 0 };
  return { name, size: a.size - b.size, count: a.count - b.count };
});
rows.sort((x, y) => y.size - x.size);
for (const r of rows.slice(0, top)) {
  console.log(`${mb(r.size)}  ${String(r.count).padStart(9)}  ${r.name.slice(0, 100)}`);
}
