import { describe, expect, it } from "vitest";
import { CI_RUNS, normalizedCommands, undocumentedRuns } from "./ci-runs.js";
import { extractDocumentedCommands } from "./markdown-commands.js";

describe("normalizedCommands", () => {
  it("reads npx -y pnpm@X as pnpm and drops the environment", () => {
    expect(
      normalizedCommands("npx -y pnpm@12.4.2 install && X=1 npx -y pnpm@12.4.2 start"),
    ).toEqual(["pnpm install", "pnpm start"]);
  });
});

describe("undocumentedRuns", () => {
  const documented = (markdown: string) => extractDocumentedCommands(markdown, "README.md");

  it("names each run whose documented form left the docs", () => {
    const readme = [
      "```sh",
      "npx -y pnpm@12.4.2 install --frozen-lockfile && npx -y pnpm@12.4.2 start",
      "pnpm fuzz                # long",
      "pnpm soak",
      "pnpm bench --quick",
      "```",
      "```console",
      "$ dst get --once -o json web-svc.emojivoto.svc.cluster.local:80",
      "$ dst profile --once web-svc.emojivoto.svc.cluster.local:80",
      "```",
    ].join("\n");
    expect(
      undocumentedRuns(CI_RUNS, documented(readme)).map((r) => [r.run.name, r.missing]),
    ).toEqual([
      ["pnpm soak --cycles=3 --subscriptions=2000", ["pnpm soak --cycles=3 --subscriptions=2000"]],
      [
        "pnpm bench --quick --only churn-mix,scale-curve,audit,reconnect-storm",
        ["pnpm bench --quick --only churn-mix,scale-curve,audit,reconnect-storm"],
      ],
    ]);
  });
});
