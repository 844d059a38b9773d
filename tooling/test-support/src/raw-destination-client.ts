/**
 * A Destination client whose answers stay bytes: the benches measure the server and decode only
 * what they inspect, and tests compare what two servers sent, byte for byte.
 */
import {
  DestinationService,
  type GetDestination,
  GetDestinationSchema,
  toBinary,
} from "@destination/proto";
import * as grpc from "@grpc/grpc-js";

const RawDestinationService = {
  get: {
    ...DestinationService.get,
    requestSerialize: (req: GetDestination) => Buffer.from(toBinary(GetDestinationSchema, req)),
    responseDeserialize: (bytes: Buffer) => bytes,
  },
  getProfile: {
    ...DestinationService.getProfile,
    requestSerialize: (req: GetDestination) => Buffer.from(toBinary(GetDestinationSchema, req)),
    responseDeserialize: (bytes: Buffer) => bytes,
  },
} satisfies grpc.ServiceDefinition;

export interface RawDestinationClient extends grpc.Client {
  get(
    request: GetDestination,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<Buffer>;
  getProfile(
    request: GetDestination,
    options?: Partial<grpc.CallOptions>,
  ): grpc.ClientReadableStream<Buffer>;
}

export const RawDestinationClient = grpc.makeGenericClientConstructor(
  RawDestinationService,
  "io.linkerd.proxy.destination.Destination",
) as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => RawDestinationClient;
