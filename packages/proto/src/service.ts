// The Destination service in the shape @grpc/grpc-js expects (a ServiceDefinition), with
// protobuf-es doing the (de)serialization. Used by the server via `addService` and by the
// client in client.ts.
import type * as grpc from "@grpc/grpc-js";
import {
  type DestinationProfile,
  DestinationProfileSchema,
  type GetDestination,
  GetDestinationSchema,
  type Update,
  UpdateSchema,
} from "./gen/destination_pb.js";
import { decoder, encoder } from "./grpc-codec.js";

/** Full gRPC method paths, as the proxy sends them. */
export const DestinationMethodPath = {
  get: "/io.linkerd.proxy.destination.Destination/Get",
  getProfile: "/io.linkerd.proxy.destination.Destination/GetProfile",
} as const;

/**
 * What a server may write to a stream: a message, or the bytes of one already encoded with
 * `encodeUpdate` / `encodeDestinationProfile`. Pre-encoding lets one update fan out to many
 * subscribers while being serialized only once.
 */
export type UpdateOrBytes = Update | Uint8Array;
export type DestinationProfileOrBytes = DestinationProfile | Uint8Array;

const serializeUpdate = encoder(UpdateSchema);

/**
 * Encodes an Update once (protobuf-es `toBinary`), for sharing between streams: the server
 * encodes each change once and writes the same bytes to every stream that gets it.
 */
export const encodeUpdate: (update: Update) => Buffer = serializeUpdate;

/** Encodes a DestinationProfile once, for sharing between streams. */
export const encodeDestinationProfile: (profile: DestinationProfile) => Buffer =
  encoder(DestinationProfileSchema);

/** The service definition. Keys are the camelCase handler names (`get`, `getProfile`). */
export const DestinationService = {
  get: {
    path: DestinationMethodPath.get,
    originalName: "Get",
    requestStream: false,
    responseStream: true,
    requestSerialize: encoder(GetDestinationSchema),
    requestDeserialize: decoder(GetDestinationSchema),
    responseSerialize: serializeUpdate,
    responseDeserialize: decoder(UpdateSchema),
  },
  getProfile: {
    path: DestinationMethodPath.getProfile,
    originalName: "GetProfile",
    requestStream: false,
    responseStream: true,
    requestSerialize: encoder(GetDestinationSchema),
    requestDeserialize: decoder(GetDestinationSchema),
    responseSerialize: encoder(DestinationProfileSchema),
    responseDeserialize: decoder(DestinationProfileSchema),
  },
} as const satisfies grpc.ServiceDefinition;

/** The server-side stream of a `Get` call. */
export type GetCall = grpc.ServerWritableStream<GetDestination, UpdateOrBytes>;
/** The server-side stream of a `GetProfile` call. */
export type GetProfileCall = grpc.ServerWritableStream<GetDestination, DestinationProfileOrBytes>;

export type GetHandler = grpc.handleServerStreamingCall<GetDestination, UpdateOrBytes>;
export type GetProfileHandler = grpc.handleServerStreamingCall<
  GetDestination,
  DestinationProfileOrBytes
>;

/** What `server.addService(DestinationService, impl)` needs. */
export interface DestinationServer extends grpc.UntypedServiceImplementation {
  get: GetHandler;
  getProfile: GetProfileHandler;
}
