import type { CallHandler } from "./grpc-http2-server.js";
import { frameMessage } from "./message-frames.js";
import type { ServerCall } from "./server-call.js";
import { Status } from "./status-code.js";
import { StatusError } from "./status-error.js";

/** Decodes a request message; throws on bytes that are not one. */
export type Decode<Req> = (bytes: Buffer) => Req;

/**
 * A method with one request message: the handler runs once the client has sent it and
 * half-closed, as grpc-js and grpc-go run theirs; no message, or a second one, is refused.
 */
function oneRequest<Req>(
  kind: "unary" | "server streaming",
  path: string,
  decode: Decode<Req>,
  run: (call: ServerCall, request: Req) => void,
): CallHandler {
  return (call) => {
    let request: Buffer | undefined;
    call.read({
      message(bytes) {
        if (request !== undefined) {
          call.end(
            Status.UNIMPLEMENTED,
            `Received a second request message for ${kind} method ${path}`,
          );
        } else request = bytes;
      },
      halfClose() {
        if (request === undefined) {
          call.end(Status.UNIMPLEMENTED, `Received no request message for ${kind} method ${path}`);
          return;
        }
        let decoded: Req;
        try {
          decoded = decode(request);
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          call.end(Status.INTERNAL, `grpc: error unmarshalling request: ${reason}`);
          return;
        }
        run(call, decoded);
      },
    });
  };
}

/** A server-streaming method: the handler writes framed messages and ends the call itself. */
export function serverStreaming<Req>(
  path: string,
  decode: Decode<Req>,
  handler: (call: ServerCall, request: Req) => void,
): CallHandler {
  return oneRequest("server streaming", path, decode, handler);
}

/** A unary method: the handler answers with the response's bytes, or throws a StatusError. */
export function unary<Req>(
  path: string,
  decode: Decode<Req>,
  handler: (request: Req) => Uint8Array,
): CallHandler {
  return oneRequest("unary", path, decode, (call, request) => {
    try {
      call.write(frameMessage(handler(request)));
      call.end(Status.OK);
    } catch (err) {
      call.fail(err instanceof StatusError ? err : new StatusError(Status.UNKNOWN, String(err)));
    }
  });
}
