import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVER_FLAGS } from "./server-flags.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/**
 * Flag → default from the README's "Flags" table. A row may name several flags (`a`, `b`) with
 * their defaults in order; a default's first code span is the value (`""` is empty), what
 * follows it explains (`""` → `cluster.local` (warning)).
 */
function readmeDefaults(markdown: string): Map<string, string> {
  const section = markdown.split(/^## Flags$/m)[1]?.split(/^## /m)[0] ?? "";
  const defaults = new Map<string, string>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 4 || !cells[1]?.startsWith("`")) continue;
    const names = [...(cells[1] ?? "").matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "");
    const values = [...(cells[2] ?? "").matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "");
    names.forEach((name, i) => {
      defaults.set(name, values[i] === '""' ? "" : (values[i] ?? "(none)"));
    });
  }
  return defaults;
}

describe("README flags table", () => {
  it("reads multi-flag rows and explained defaults", () => {
    const table = [
      "## Flags",
      "| flag | default | meaning |",
      "| ---- | ------- | ------- |",
      "| `a`, `b` | `1`, `2` | x |",
      '| `c` | `""` → `cluster.local` (warning) | y |',
      "## Next",
      "| `d` | `3` | z |",
    ].join("\n");
    expect([...readmeDefaults(table)]).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["c", ""],
    ]);
  });

  it("lists exactly the flags of SERVER_FLAGS, with their defaults", () => {
    const documented = [...readmeDefaults(README)].sort(([a], [b]) => a.localeCompare(b));
    const flags = SERVER_FLAGS.map((f): [string, string] => [f.name, f.default]);
    expect(documented).toEqual(flags.sort(([a], [b]) => a.localeCompare(b)));
  });
});
