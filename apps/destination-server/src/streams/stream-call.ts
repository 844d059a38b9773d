import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import type { StatusCode } from "../grpc/status-error.js";
import type { WritableCall } from "./stream-queue.js";

/**
 * What a stream session needs of a server-streaming call: writes with backpressure, one end with
 * a status, and a signal for the ends it did not choose (the client left, the deadline passed).
 */
export interface StreamCall extends WritableCall {
  /** Ends the call with a status; OK carries no message, as upstream's grpc-go sends it. */
  end(code: StatusCode, details?: string): void;
  /** Runs `listener` when the call ends without `end` (cancellation or deadline). */
  onAbort(listener: () => void): void;
}

/**
 * A grpc-js server-streaming call as a StreamCall. Every end goes through grpc-js' `'error'`
 * event, its way of setting a call's status: `call.end()` would send OK with the message "OK",
 * which no upstream client sees. Messages already written go out before the status.
 */
export function streamCallOf(call: grpc.ServerWritableStream<unknown, Uint8Array>): StreamCall {
  let ended = false;
  return {
    write(bytes) {
      // After the end nothing may be written; the message is dropped as the stream is gone.
      if (ended || call.cancelled) return true;
      return call.write(bytes);
    },
    once(event, listener) {
      return call.once(event, listener);
    },
    end(code = Status.OK, details = "") {
      if (ended) return;
      ended = true;
      if (call.cancelled) return;
      const error: Partial<grpc.StatusObject> = { code, details };
      call.emit("error", error);
    },
    onAbort(listener) {
      call.once("cancelled", () => {
        if (ended) return;
        ended = true;
        listener();
      });
    },
  };
}
