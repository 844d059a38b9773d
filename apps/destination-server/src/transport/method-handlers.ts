import type { CallHandler } from "./grpc-http2-server.js";
import { frameMessage } from "./message-frames.js";
import type { ServerCall } from "./server-call.js";
import { Status } from "./status-code.js";
import { StatusError } from "./status-error.js";

/**
 * What the transport needs of a method: the shape of a grpc-js method definition, so the
 * service definitions `@destination/proto` has (Destination, health) serve as they are.
 */
export interface MethodDefinition<Req, Res> {
  readonly path: string;
  readonly responseStream: boolean;
  /** Decodes a request message; throws on bytes that are not one. */
  requestDeserialize(bytes: Buffer): Req;
  responseSerialize(value: Res): Buffer;
}

/**
 * A method with one request message: the handler runs once the client has sent it and
 * half-closed, as grpc-js and grpc-go run theirs; no message, or a second one, is refused.
 */
function oneRequest<Req>(
  method: MethodDefinition<Req, unknown>,
  run: (call: ServerCall, request: Req) => void,
): CallHandler {
  const kind = method.responseStream ? "server streaming" : "unary";
  return (call) => {
    let request: Buffer | undefined;
    call.read({
      message(bytes) {
        if (request !== undefined) {
          call.end(
            Status.UNIMPLEMENTED,
            `Received a second request message for ${kind} method ${method.path}`,
          );
        } else request = bytes;
      },
      halfClose() {
        if (request === undefined) {
          call.end(
            Status.UNIMPLEMENTED,
            `Received no request message for ${kind} method ${method.path}`,
          );
          return;
        }
        let decoded: Req;
        try {
          decoded = method.requestDeserialize(request);
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
  method: MethodDefinition<Req, unknown>,
  handler: (call: ServerCall, request: Req) => void,
): CallHandler {
  return oneRequest(method, handler);
}

/** A unary method: the handler answers with the response, or throws a StatusError. */
export function unary<Req, Res>(
  method: MethodDefinition<Req, Res>,
  handler: (request: Req) => Res,
): CallHandler {
  return oneRequest(method, (call, request) => {
    try {
      call.write(frameMessage(method.responseSerialize(handler(request))));
      call.end(Status.OK);
    } catch (err) {
      call.fail(err instanceof StatusError ? err : new StatusError(Status.UNKNOWN, String(err)));
    }
  });
}
