import type { DestinationServer, GetDestination } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import { streamCallOf } from "../streams/stream-session.js";
import type { DestinationContext } from "./destination-context.js";
import { FairStarts } from "./fair-starts.js";
import { handleGet } from "./get-handler.js";
import { handleGetProfile } from "./get-profile-handler.js";

/**
 * The Destination service's implementation for a grpc-js `Server`:
 * `server.addService(DestinationService, destinationHandlers(context))`. Each call gets its
 * bounded queue, backpressure from `write()` and `'drain'`, its metrics and its release on every
 * end (README "Mounting the handlers"). Calls start in turns across connections (`FairStarts`);
 * one the client cancelled before its turn is never started.
 */
export function destinationHandlers(context: DestinationContext): DestinationServer {
  const starts = new FairStarts();
  const inTurn =
    (handle: typeof handleGet) =>
    (call: grpc.ServerWritableStream<GetDestination, Uint8Array>): void =>
      starts.run(call.getPeer(), () => {
        if (!call.cancelled) handle(context, streamCallOf(call), call.request);
      });
  return { get: inTurn(handleGet), getProfile: inTurn(handleGetProfile) };
}
