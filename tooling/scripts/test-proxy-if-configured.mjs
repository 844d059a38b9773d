#!/usr/bin/env node
// The proxy suite's place in `pnpm test`: it runs `pnpm test:proxy` when LINKERD2_PROXY_BIN
// names a linkerd2-proxy binary, and otherwise says that it was skipped and why, and succeeds,
// so a fresh clone without the proxy still passes. A report left by an earlier run is removed
// either way, so the summary counts only this run.
import { rmSync } from "node:fs";
import { runPnpmScript } from "./run-pnpm-script.mjs";

const report = new URL("../proxy-e2e/.vitest-proxy-report.json", import.meta.url).pathname;
rmSync(report, { force: true });

const bin = process.env.LINKERD2_PROXY_BIN;
if (bin === undefined || bin === "") {
  console.log(
    [
      "",
      "!!! proxy suite (tooling/proxy-e2e) SKIPPED: LINKERD2_PROXY_BIN is not set.",
      "!!! It runs Linkerd's real proxy against the server; the README's Contributing section",
      '!!! ("The real proxy") says how to build one. `pnpm test:proxy` runs it on its own.',
      "",
    ].join("\n"),
  );
  process.exit(0);
}
process.exit(runPnpmScript("test:proxy"));
