#!/usr/bin/env node
// The mesh suite's place in `pnpm test`: it runs `pnpm test:mesh` when LINKERD2_PROXY_BIN,
// LINKERD_CONTROLLER_BIN, LINKERD_POLICY_CONTROLLER_BIN and LINKERD_RELEASE_DIR are all set, and
// otherwise says that it was skipped and why, and succeeds, so a fresh clone without Linkerd's
// binaries still passes. A report left by an earlier run is removed either way, so the summary
// counts only this run.
import { rmSync } from "node:fs";
import { runPnpmScript } from "./run-pnpm-script.mjs";

const report = new URL("../mesh-e2e/.vitest-mesh-report.json", import.meta.url).pathname;
rmSync(report, { force: true });

const required = [
  "LINKERD2_PROXY_BIN",
  "LINKERD_CONTROLLER_BIN",
  "LINKERD_POLICY_CONTROLLER_BIN",
  "LINKERD_RELEASE_DIR",
];
const missing = required.filter((name) => (process.env[name] ?? "") === "");
if (missing.length > 0) {
  console.log(
    [
      "",
      `!!! mesh suite (tooling/mesh-e2e) SKIPPED: ${missing.join(", ")} not set.`,
      "!!! It runs Linkerd's control plane (upstream identity and policy controller, our destination",
      "!!! server and upstream's) with real proxies; tooling/mesh-e2e/README.md says what each",
      "!!! variable names. `pnpm test:mesh` runs it on its own.",
      "",
    ].join("\n"),
  );
  process.exit(0);
}
process.exit(runPnpmScript("test:mesh"));
