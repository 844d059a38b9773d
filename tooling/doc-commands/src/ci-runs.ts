/**
 * The documented commands CI can afford to run for real, each with its timeout. Every other
 * documented command is checked statically only (see check-commands.ts).
 */

import type { DocumentedCommand } from "./markdown-commands.js";
import { runToCompletion } from "./process-group.js";
import { parseCommandLine, ShellSyntaxError } from "./shell-words.js";
import { type RunContext, type RunOutcome, startAndQuery } from "./start-and-query.js";

export interface CiRun {
  /** The line printed for it. */
  readonly name: string;
  /**
   * The documented commands it stands for (normalized: `npx -y pnpm@X` read as `pnpm`). Each
   * must still be in the docs, so that the run list follows what the docs say.
   */
  readonly documents: readonly string[];
  readonly timeoutMs: number;
  run(context: RunContext): Promise<RunOutcome>;
}

const MINUTE = 60_000;

/** A pnpm command that must exit 0; `args` come after `pnpm`. */
function pnpmRun(args: readonly string[], documents: readonly string[], timeoutMs: number): CiRun {
  return {
    name: `pnpm ${args.join(" ")}`,
    documents,
    timeoutMs,
    async run(context) {
      const done = await runToCompletion([...context.pnpm, ...args], {
        cwd: context.root,
        timeoutMs: context.timeoutMs,
      });
      if (done.timedOut) {
        return { ok: false, detail: `timed out after ${timeoutMs / 1000} s`, output: done.output };
      }
      if (done.code !== 0) {
        return { ok: false, detail: `exit ${done.code ?? done.signal}`, output: done.output };
      }
      return { ok: true, detail: lastLine(done.stdout) };
    },
  };
}

export const CI_RUNS: readonly CiRun[] = [
  // Measured on a loaded 2-core machine: about 45 s (the default 100,000 runs take 10–20 min).
  pnpmRun(["fuzz", "3000"], ["pnpm fuzz"], 6 * MINUTE),
  // About 5 s after the build (the default 10 x 10,000 takes about 15 s).
  pnpmRun(
    ["soak", "--cycles=3", "--subscriptions=2000"],
    ["pnpm soak", "pnpm soak --cycles=3 --subscriptions=2000"],
    3 * MINUTE,
  ),
  // About 35 s.
  pnpmRun(["bench", "--quick"], ["pnpm bench --quick"], 6 * MINUTE),
  // Ours only on a real API server, about 3.5 min (audit about 30 s, reconnect-storm about
  // 1 min, most of it writing its dataset); the first use
  // builds kube-apiserver and etcd (8–18 min, cached for the test command's integration suites
  // after it).
  pnpmRun(
    ["bench", "--quick", "--only", "churn-mix,scale-curve,audit,reconnect-storm"],
    ["pnpm bench --quick --only churn-mix,scale-curve,audit,reconnect-storm"],
    30 * MINUTE,
  ),
  {
    name: "pnpm start, then dst get and dst profile against it",
    documents: [
      "pnpm start",
      "dst get --once -o json web-svc.emojivoto.svc.cluster.local:80",
      "dst profile --once web-svc.emojivoto.svc.cluster.local:80",
    ],
    timeoutMs: 3 * MINUTE,
    run: startAndQuery,
  },
];

/** The documented forms CI runs that the docs no longer show. */
export function undocumentedRuns(
  runs: readonly CiRun[],
  commands: readonly DocumentedCommand[],
): { run: CiRun; missing: string[] }[] {
  const documented = new Set(commands.flatMap((c) => normalizedCommands(c.text)));
  return runs
    .map((run) => ({ run, missing: run.documents.filter((d) => !documented.has(d)) }))
    .filter((r) => r.missing.length > 0);
}

/** Each simple command of a line as words joined by one space, `npx [-y] pnpm@X` as `pnpm`. */
export function normalizedCommands(text: string): string[] {
  let simple: ReturnType<typeof parseCommandLine>;
  try {
    simple = parseCommandLine(text);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return [];
    throw err;
  }
  return simple.map(({ words }) => {
    let values = words.map((w) => w.value);
    if (values[0] === "npx") {
      const at = values.findIndex((v, i) => i > 0 && !v.startsWith("-"));
      if (/^pnpm(@.+)?$/.test(values[at] ?? "")) values = ["pnpm", ...values.slice(at + 1)];
    }
    return values.join(" ");
  });
}

function lastLine(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal colour codes
  return (lines.at(-1) ?? "").replace(/\u001b\[[0-9;]*m/g, "").trim();
}
