#!/usr/bin/env node
// `pnpm deps:graph` redraws the workspace graph in docs/architecture.md from the sources, with
// dependency-cruiser; `--check` (part of `pnpm lint`) fails when the drawn graph is out of date.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const doc = join(root, "docs/architecture.md");
const BEGIN = "<!-- graph:begin (pnpm deps:graph) -->";
const END = "<!-- graph:end -->";

// Production imports only: tests and their test/ folders may reach further (see the rules).
const mermaid = execFileSync(
  join(root, "node_modules/.bin/depcruise"),
  [
    "packages",
    "apps",
    "--config",
    ".dependency-cruiser.cjs",
    "--include-only",
    "^(packages|apps)/",
    "--exclude",
    "(^|/)(dist|node_modules)/|\\.test\\.ts$|/test/|vitest\\.config",
    "--collapse",
    "^(packages|apps)/[^/]+",
    "--output-type",
    "mermaid",
  ],
  { cwd: root, encoding: "utf8" },
).trim();

const text = readFileSync(doc, "utf8");
const start = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (start < 0 || end < start) {
  process.stderr.write(`deps:graph: ${doc} has no ${BEGIN} … ${END} block\n`);
  process.exit(1);
}
const next = `${text.slice(0, start + BEGIN.length)}\n\n\`\`\`mermaid\n${mermaid}\n\`\`\`\n\n${text.slice(end)}`;

if (process.argv.includes("--check")) {
  if (next !== text) {
    process.stderr.write("docs/architecture.md: the graph is out of date; run `pnpm deps:graph`\n");
    process.exit(1);
  }
  process.stdout.write("docs/architecture.md: the graph is current\n");
} else {
  writeFileSync(doc, next);
  process.stdout.write("docs/architecture.md: graph written\n");
}
