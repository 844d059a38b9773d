// The first complete answer of a stream: its first message, or nothing when the stream stays
// silent for the timeout (Get never sends "no endpoints"; GetProfile is silent on a rejected
// ServiceProfile), or how it failed.
import type { CliFailure } from "../exit-code.js";
import type {
  DestinationConnection,
  DestinationStream,
  MethodMessages,
} from "../grpc/destination-connection.js";

export type FirstAnswer<Message> =
  | { readonly kind: "answered"; readonly message: Message | undefined }
  | { readonly kind: "failed"; readonly failure: CliFailure };

export async function firstAnswer<Method extends keyof MethodMessages>(
  connection: DestinationConnection,
  method: Method,
  authority: string,
  contextToken: string,
  /** Registers the stream for Ctrl-C (`InterruptGuard.track`). */
  track: (stream: DestinationStream) => DestinationStream,
): Promise<FirstAnswer<MethodMessages[Method]>> {
  let message: MethodMessages[Method] | undefined;
  const stream: DestinationStream = track(
    connection.open(method, authority, contextToken, {
      onMessage(first) {
        message = first;
        stream.cancel();
      },
      onQuiet() {
        stream.cancel();
      },
    }),
  );
  const end = await stream.ended;
  // A stream the server closed with OK before answering (shutdown) counts as silent.
  return end.kind === "failed" ? end : { kind: "answered", message };
}
