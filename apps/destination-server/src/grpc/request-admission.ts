import * as grpc from "@grpc/grpc-js";

/** Bounds on calls that have opened a stream but not yet delivered their request message. */
export interface RequestAdmissionLimits {
  /** Such calls across every connection at once; more are refused. 0: no bound. */
  readonly maxPendingRequests: number;
  /** How long a call may take to deliver its request; then it is ended. 0: no bound. */
  readonly requestMessageTimeoutMs: number;
}

/**
 * A server interceptor that bounds calls still waiting for their request message. Every
 * Destination and Health method takes one request message, which a real client sends with the
 * headers; a stream opened without it costs the server a call (grpc-js holds it until the
 * message comes) and the client nothing, so a few connections of such streams could fill the
 * heap. At the bound the oldest waiting call is ended (RESOURCE_EXHAUSTED), not the new one: a
 * real client's call waits only until its message, already on the wire, is read, so it is
 * never the oldest for long, while streams that never send one are. A call that waits longer
 * than the timeout ends with DEADLINE_EXCEEDED.
 */
export function requestAdmission(
  limits: RequestAdmissionLimits,
  onRefused: (reason: "pending" | "timeout") => void = () => {},
): grpc.ServerInterceptor {
  // Insertion order is age order: the first entry is the oldest waiting call.
  const waiting = new Map<object, () => void>();
  return (_method, call) => {
    const key = {};
    let timer: NodeJS.Timeout | undefined;
    const admitted = () => {
      if (!waiting.delete(key)) return;
      clearTimeout(timer);
    };
    const end = (reason: "pending" | "timeout", status: { code: grpc.status; details: string }) => {
      admitted();
      onRefused(reason);
      call.sendStatus(status);
    };
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMessage: (message, nextMessage) => {
            admitted();
            nextMessage(message);
          },
          onReceiveHalfClose: (nextHalfClose) => {
            admitted();
            nextHalfClose();
          },
          onCancel: admitted,
        });
        if (limits.maxPendingRequests > 0 && waiting.size >= limits.maxPendingRequests) {
          const [evictOldest] = waiting.values();
          evictOldest?.();
        }
        waiting.set(key, () =>
          end("pending", {
            code: grpc.status.RESOURCE_EXHAUSTED,
            details: `too many calls waiting for their request message (${limits.maxPendingRequests})`,
          }),
        );
        if (limits.requestMessageTimeoutMs > 0) {
          timer = setTimeout(
            () =>
              end("timeout", {
                code: grpc.status.DEADLINE_EXCEEDED,
                details: `no request message within ${limits.requestMessageTimeoutMs} ms`,
              }),
            limits.requestMessageTimeoutMs,
          );
          timer.unref();
        }
      },
      sendStatus(status, nextStatus) {
        admitted();
        nextStatus(status);
      },
    });
  };
}
