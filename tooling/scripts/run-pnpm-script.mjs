// Runs a root package script with the pnpm that runs `pnpm test` (CI runs it through npx, so
// `pnpm` need not be on PATH), for the suites that `pnpm test` runs only when configured.
import { spawnSync } from "node:child_process";

/** Runs `pnpm <script>` with inherited output; returns its exit status. */
export function runPnpmScript(script) {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the package manager, not an input
  const pnpm = process.env.npm_execpath;
  const [cmd, args] =
    pnpm === undefined || pnpm === ""
      ? ["pnpm", []]
      : /\.[cm]?js$/.test(pnpm)
        ? [process.execPath, [pnpm]]
        : [pnpm, []];
  return spawnSync(cmd, [...args, script], { stdio: "inherit" }).status ?? 1;
}
