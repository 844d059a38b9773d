/**
 * The CPU profile of a server child (`--cpu-prof DIR`), summarised per window of the scenario
 * and logged: what the scenarios with a real API server share.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type PhaseWindow, summarizeCpuProfile } from "../profile-summary.js";
import type { ScenarioContext } from "./common.js";

/** The clock V8's CPU profiles are stamped with (CLOCK_MONOTONIC), in µs. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Summarises the one `.cpuprofile` in `dir` over `windows` into `dir/summary.json` (the windows
 * into `dir/windows.json`), and logs the
 * heaviest packages of each window, or with `totalOnly` of all windows together.
 */
export function reportProfile(
  ctx: ScenarioContext,
  scenario: string,
  dir: string,
  windows: readonly PhaseWindow[],
  totalOnly = false,
): void {
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file === undefined) {
    ctx.log(`${scenario}: no CPU profile in ${dir}`);
    return;
  }
  const summary = summarizeCpuProfile(JSON.parse(readFileSync(join(dir, file), "utf8")), windows);
  const out = join(dir, "summary.json");
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  // The windows themselves, on the profile's clock, for reading the profile further by hand.
  writeFileSync(join(dir, "windows.json"), `${JSON.stringify(windows, null, 2)}\n`);
  ctx.log(`${scenario}: CPU profile ${join(dir, file)}, summary ${out}`);
  const logged = totalOnly ? summary.filter((w) => w.window === "all phases") : summary;
  for (const window of logged) {
    ctx.log(`  ${window.window}: ${window.ms.toFixed(0)} ms sampled`);
    for (const row of window.byCategory.slice(0, 12)) {
      ctx.log(
        `  ${row.ms.toFixed(0).padStart(6)} ms ${row.percent.toFixed(1).padStart(5)} %  ${row.name}`,
      );
    }
  }
}
