// The Identity service (io.linkerd.proxy.identity.Identity/Certify) in the shape @grpc/grpc-js
// expects. Its own entry point (`@destination/proto/identity`): the destination server never
// serves it; tests that start real proxies do, because a proxy will not start without a
// certificate.
import type * as grpc from "@grpc/grpc-js";
import {
  type CertifyRequest,
  CertifyRequestSchema,
  type CertifyResponse,
  CertifyResponseSchema,
} from "./gen/identity_pb.js";
import { decoder, encoder } from "./grpc-codec.js";

export type { Timestamp } from "./gen/google/protobuf/timestamp/timestamp_pb.js";
export {
  file_google_protobuf_timestamp_timestamp,
  TimestampSchema,
} from "./gen/google/protobuf/timestamp/timestamp_pb.js";
export * from "./gen/identity_pb.js";

/** The full gRPC method path, as the proxy sends it. */
export const IdentityCertifyPath = "/io.linkerd.proxy.identity.Identity/Certify";

export const IdentityService = {
  certify: {
    path: IdentityCertifyPath,
    originalName: "Certify",
    requestStream: false,
    responseStream: false,
    requestSerialize: encoder(CertifyRequestSchema),
    requestDeserialize: decoder(CertifyRequestSchema),
    responseSerialize: encoder(CertifyResponseSchema),
    responseDeserialize: decoder(CertifyResponseSchema),
  },
} as const satisfies grpc.ServiceDefinition;

/** What `server.addService(IdentityService, impl)` needs. */
export interface IdentityServer extends grpc.UntypedServiceImplementation {
  certify: grpc.handleUnaryCall<CertifyRequest, CertifyResponse>;
}
