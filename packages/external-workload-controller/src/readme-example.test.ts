import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The README's example is examples/controller.mts, which `typecheck` checks with the package's
// sources; it needs a cluster to run, so here it is only kept identical.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const file = readFileSync(new URL("../examples/controller.mts", import.meta.url), "utf8");

describe("the README example", () => {
  it("is examples/controller.mts, which the type check covers", () => {
    const block = /```ts title="controller\.mts"\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(file);
  });
});
