import type { DestinationServer } from "@destination/proto";
import { streamCallOf } from "../streams/stream-call.js";
import type { DestinationContext } from "./destination-context.js";
import { handleGet } from "./get-handler.js";
import { handleGetProfile } from "./get-profile-handler.js";

/**
 * The Destination service's implementation for a grpc-js `Server`:
 * `server.addService(DestinationService, destinationHandlers(context))`. Each call gets its
 * bounded queue, backpressure from `write()` and `'drain'`, its metrics and its release on every
 * end (README "Mounting the handlers").
 */
export function destinationHandlers(context: DestinationContext): DestinationServer {
  return {
    get: (call) => handleGet(context, streamCallOf(call), call.request),
    getProfile: (call) => handleGetProfile(context, streamCallOf(call), call.request),
  };
}
