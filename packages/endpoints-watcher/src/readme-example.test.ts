import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";

const example = new URL("../examples/print-endpoints.mjs", import.meta.url);

describe("README example", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is the runnable file, verbatim, and prints what its comments say", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(readFileSync(example, "utf8"));

    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    await import(example.href);
    expect(lines).toEqual([
      "add 10.0.0.1:8080",
      "add 10.0.0.2:8080",
      "remove 10.0.0.1:8080",
      "remove 10.0.0.2:8080",
    ]);
  });
});
