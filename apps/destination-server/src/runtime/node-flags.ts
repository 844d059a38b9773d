// The V8 and node flags the binary runs with, set by the binary itself so that every way of
// starting it (the image's entrypoint, `pnpm start`, a chart's command, `npx`) gets them. V8
// sizes its heap when the process starts, so the binary re-executes itself once with the flags
// (`process.execve`: same pid, same file descriptors, nothing left behind).

import { execArgv, execPath } from "node:process";

/**
 * What the binary adds to node's command line, with why, measured in BENCHMARKS.md ("Node 26
 * and 16 MiB semi-spaces"; the server README's "Node flags"). A flag the operator already
 * gives (on the command line or in NODE_OPTIONS) wins.
 */
export const DEFAULT_NODE_FLAGS: readonly string[] = [
  // Node 24+ size the young generation from the heap limit: 64–128 MiB committed on a large
  // machine, 50–70 MiB of idle RSS at 10k pods. 16 MiB semi-spaces are Node 20's size; 8 MiB
  // promoted more into the old space and held more.
  "--max-semi-space-size=16",
  // `gc()`, for the one full collection after start (settle-heap.ts).
  "--expose-gc",
];

/** Replaces DEFAULT_NODE_FLAGS: space-separated; empty for none. */
export const NODE_FLAGS_ENV = "DESTINATION_NODE_FLAGS";
/** Set on the re-executed process, so that it never re-executes again. */
const RELAUNCHED_ENV = "DESTINATION_NODE_FLAGS_APPLIED";

/** The name of a `--flag=value` or `--flag` (V8 treats `-` and `_` alike). */
function flagName(flag: string): string {
  const eq = flag.indexOf("=");
  return (eq < 0 ? flag : flag.slice(0, eq)).replaceAll("_", "-").replace(/^--no-/, "--");
}

/** The flags still to add: those wanted whose name the running process was not given. */
export function missingNodeFlags(
  wanted: readonly string[],
  given: readonly string[],
  nodeOptions: string | undefined,
): string[] {
  const present = new Set(
    [...given, ...(nodeOptions ?? "").split(/\s+/)].filter((f) => f.startsWith("--")).map(flagName),
  );
  return wanted.filter((flag) => !present.has(flagName(flag)));
}

/** The flags this process should run with: the environment's list, or the defaults. */
export function wantedNodeFlags(env: NodeJS.ProcessEnv): readonly string[] {
  const fromEnv = env[NODE_FLAGS_ENV];
  if (fromEnv === undefined) return DEFAULT_NODE_FLAGS;
  return fromEnv.split(/\s+/).filter((f) => f !== "");
}

/**
 * Re-executes the process with the missing flags, or returns when there are none (or when this
 * node has no `process.execve`, or it already re-executed once): then the caller goes on.
 */
export function relaunchWithNodeFlags(): void {
  const env = process.env;
  if (env[RELAUNCHED_ENV] !== undefined) {
    delete env[RELAUNCHED_ENV];
    return;
  }
  const missing = missingNodeFlags(wantedNodeFlags(env), execArgv, env.NODE_OPTIONS);
  if (missing.length === 0 || typeof process.execve !== "function") return;
  const script = process.argv[1];
  if (script === undefined) return;
  process.execve(execPath, [execPath, ...execArgv, ...missing, script, ...process.argv.slice(2)], {
    ...env,
    [RELAUNCHED_ENV]: "1",
  });
}
