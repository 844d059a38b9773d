// Waiting for a control-plane process as its readiness probe would: its admin /ready answering
// 200, through a Unix-socket bridge into its pod; failing at once, with its output, if it exits.
import { eventually } from "@destination/proxy-e2e/eventually";
import { httpGet } from "@destination/proxy-e2e/http-over-socket";
import type { StartedProcess } from "@destination/proxy-e2e/network-namespace";

export async function untilReady(
  proc: StartedProcess,
  adminSocket: string,
  timeoutMs = 60_000,
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
      { timeoutMs, intervalMs: 250 },
    ),
  ]);
}
