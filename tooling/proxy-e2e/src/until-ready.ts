// Waiting for a process as a readiness probe would: its admin /ready answering 200, through a
// Unix-socket bridge into its namespace; failing at once, with its output, if it exits first.
import { eventually } from "./eventually.js";
import { httpGet } from "./http-over-socket.js";
import type { StartedProcess } from "./network-namespace.js";

export async function untilReady(
  proc: StartedProcess,
  adminSocket: string,
  timeoutMs = 60_000,
  intervalMs = 250,
): Promise<void> {
  const exitedEarly = proc.exited.then(() => {
    throw new Error(`${proc.name} exited before it was ready:\n${proc.output().slice(-4000)}`);
  });
  exitedEarly.catch(() => {});
  await Promise.race([
    exitedEarly,
    eventually(
      `${proc.name} to answer /ready`,
      async () => {
        try {
          return (await httpGet(adminSocket, "/ready", {}, 2000)).status === 200;
        } catch {
          return undefined;
        }
      },
      { timeoutMs, intervalMs },
    ),
  ]);
}
