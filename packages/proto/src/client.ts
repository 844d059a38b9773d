// A typed grpc-js client for the Destination service, mainly for tests and tooling (the real
// clients are proxies).
import * as grpc from "@grpc/grpc-js";
import type { DestinationProfile, GetDestination, Update } from "./gen/destination_pb.js";
import { DestinationService } from "./service.js";

export interface DestinationClient extends grpc.Client {
  get(
    request: GetDestination,
    metadata?: grpc.Metadata,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<Update>;
  get(
    request: GetDestination,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<Update>;
  getProfile(
    request: GetDestination,
    metadata?: grpc.Metadata,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<DestinationProfile>;
  getProfile(
    request: GetDestination,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<DestinationProfile>;
}

export type DestinationClientConstructor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => DestinationClient;

/** `new DestinationClient("127.0.0.1:8086", grpc.credentials.createInsecure())`. */
export const DestinationClient = grpc.makeGenericClientConstructor(
  DestinationService,
  "io.linkerd.proxy.destination.Destination",
) as unknown as DestinationClientConstructor;

/**
 * grpc-js' credentials, from the copy this client is built on: the client checks them with
 * `instanceof`, so credentials from another copy of grpc-js would be refused.
 * `new DestinationClient(addr, credentials.createInsecure())` needs no other package.
 */
export { credentials } from "@grpc/grpc-js";
