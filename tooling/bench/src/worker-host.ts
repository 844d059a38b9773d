/** The child side of the IPC protocol: answer each request in order, report failures. */
import type { Envelope, WorkerReply, WorkerRequest } from "./protocol.js";

export function serveRequests(handle: (req: WorkerRequest) => Promise<WorkerReply>): void {
  if (process.send === undefined) {
    process.stderr.write("this is a bench child process; run the bench's main instead\n");
    process.exit(2);
  }
  let chain = Promise.resolve();
  process.on("message", (raw: Envelope<WorkerRequest>) => {
    chain = chain.then(async () => {
      let body: WorkerReply;
      try {
        body = await handle(raw.body);
      } catch (err) {
        body = {
          type: "error",
          message: err instanceof Error ? (err.stack ?? err.message) : String(err),
        };
      }
      process.send?.({ id: raw.id, body } satisfies Envelope<WorkerReply>);
    });
  });
  // The parent going away ends the child.
  process.on("disconnect", () => process.exit(0));
}
