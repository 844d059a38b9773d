// The first complete answer of a Get stream: its first message, or nothing when the stream stays
// silent for the timeout (the server never sends "no endpoints"), or how it failed.
import type { Update } from "@destination/proto";
import type { CliFailure } from "../cli-failure.js";
import type { DestinationConnection, DestinationStream } from "../grpc/destination-connection.js";

export type FirstAnswer =
  | { readonly kind: "answered"; readonly update: Update | undefined }
  | { readonly kind: "failed"; readonly failure: CliFailure };

export async function firstAnswer(
  connection: DestinationConnection,
  authority: string,
  contextToken: string,
  /** Registers the stream for Ctrl-C (`InterruptGuard.track`). */
  track: (stream: DestinationStream) => DestinationStream,
): Promise<FirstAnswer> {
  let update: Update | undefined;
  const stream: DestinationStream = track(
    connection.open("get", authority, contextToken, {
      onMessage(message) {
        update = message;
        stream.cancel();
      },
      onQuiet() {
        stream.cancel();
      },
    }),
  );
  const end = await stream.ended;
  // A stream the server closed with OK before answering (shutdown) counts as silent.
  return end.kind === "failed" ? end : { kind: "answered", update };
}
