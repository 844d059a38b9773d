// Commands the suite runs to their end, each in a process group of its own (doc-commands'
// process-group, which also starts the long-running ones): a timeout or the end of a test stops
// what it started (npm → node, pnpm → sh → turbo) by that group's id, and nothing else. Here a
// timeout fails the test, with the command's output.
import {
  type Completed,
  describeArgv,
  runToCompletion,
  type SpawnOptions,
} from "@destination/doc-commands/process-group";

export type { Completed };

/** Runs argv to its end; after `timeoutMs` its group is ended and the call rejects. */
export async function run(
  argv: readonly string[],
  options: SpawnOptions & { readonly timeoutMs: number },
): Promise<Completed> {
  const result = await runToCompletion(argv, options);
  if (result.timedOut) {
    throw new Error(
      `${describeArgv(argv)} did not finish within ${options.timeoutMs} ms:\n${result.output}`,
    );
  }
  return result;
}

/** `run`, and a failure with the command's output unless it exits 0. */
export async function runOk(
  argv: readonly string[],
  options: SpawnOptions & { readonly timeoutMs: number },
): Promise<Completed> {
  const result = await run(argv, options);
  if (result.code !== 0) {
    throw new Error(
      `${describeArgv(argv)} (in ${options.cwd}) exited ${result.code ?? result.signal}:\n${result.output}`,
    );
  }
  return result;
}
