/**
 * The messages between the discovery thread (the main one: caches, watchers, translation,
 * encoding) and the gRPC serving thread (HTTP/2, grpc-js, framing). Both sides batch what they
 * have to say within one task into one message, so that a fan-out to 10k streams crosses once,
 * its encoded bytes once per distinct payload.
 */
import type { GrpcLimits } from "./grpc-server.js";

/** What the serving thread is started with. */
export interface ServingThreadData {
  readonly limits: GrpcLimits;
}

/** The two streaming methods, as numbers on the wire between the threads. */
export const GET = 0;
export const GET_PROFILE = 1;
export type MethodCode = typeof GET | typeof GET_PROFILE;

/** A call the serving thread accepted and whose request message arrived. */
export interface AcceptedCall {
  readonly id: number;
  readonly method: MethodCode;
  readonly peer: string;
  readonly scheme: string;
  readonly path: string;
  readonly contextToken: string;
}

/** Discovery → serving. */
export type ToServing =
  | { readonly t: "bind"; readonly host: string; readonly port: number }
  | {
      readonly t: "out";
      /** Pairs of call id and index into `payloads`, in the order they were written. */
      readonly writes: readonly number[];
      readonly payloads: readonly Uint8Array[];
      /** Calls to end after their writes: id, status code, details. */
      readonly ends: readonly (readonly [number, number, string])[];
    }
  | { readonly t: "shutdown"; readonly timeoutMs: number };

/** Serving → discovery. */
export type ToDiscovery =
  | { readonly t: "bound"; readonly port: number }
  | { readonly t: "bindFailed"; readonly message: string }
  | {
      readonly t: "in";
      readonly calls: readonly AcceptedCall[];
      /** Calls the client ended (cancelled, deadline, connection gone). */
      readonly cancelled: readonly number[];
      /** Calls whose HTTP/2 stream backed up (`write` false), and calls that drained since. */
      readonly paused: readonly number[];
      readonly drained: readonly number[];
    }
  | { readonly t: "refused"; readonly reason: "pending" | "timeout" }
  | { readonly t: "closed"; readonly forced: boolean };
