// gRPC health (grpc.health.v1.Health) in the shape @grpc/grpc-js expects, over the schemas
// generated from grpc-proto's health.proto: a server offers it without loading protobufjs.
import type * as grpc from "@grpc/grpc-js";
import {
  type HealthCheckRequest,
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  type HealthListRequest,
  HealthListRequestSchema,
  type HealthListResponse,
  HealthListResponseSchema,
} from "./gen/grpc/health/v1/health_pb.js";
import { decoder, encoder } from "./grpc-codec.js";

const PATH = "/grpc.health.v1.Health";

/** The service definition. Keys are the camelCase handler names (`check`, `watch`, `list`). */
export const HealthService = {
  check: {
    path: `${PATH}/Check`,
    originalName: "Check",
    requestStream: false,
    responseStream: false,
    requestSerialize: encoder(HealthCheckRequestSchema),
    requestDeserialize: decoder(HealthCheckRequestSchema),
    responseSerialize: encoder(HealthCheckResponseSchema),
    responseDeserialize: decoder(HealthCheckResponseSchema),
  },
  watch: {
    path: `${PATH}/Watch`,
    originalName: "Watch",
    requestStream: false,
    responseStream: true,
    requestSerialize: encoder(HealthCheckRequestSchema),
    requestDeserialize: decoder(HealthCheckRequestSchema),
    responseSerialize: encoder(HealthCheckResponseSchema),
    responseDeserialize: decoder(HealthCheckResponseSchema),
  },
  list: {
    path: `${PATH}/List`,
    originalName: "List",
    requestStream: false,
    responseStream: false,
    requestSerialize: encoder(HealthListRequestSchema),
    requestDeserialize: decoder(HealthListRequestSchema),
    responseSerialize: encoder(HealthListResponseSchema),
    responseDeserialize: decoder(HealthListResponseSchema),
  },
} as const satisfies grpc.ServiceDefinition;

/** What `server.addService(HealthService, impl)` needs. */
export interface HealthServer extends grpc.UntypedServiceImplementation {
  check: grpc.handleUnaryCall<HealthCheckRequest, HealthCheckResponse>;
  watch: grpc.handleServerStreamingCall<HealthCheckRequest, HealthCheckResponse>;
  list: grpc.handleUnaryCall<HealthListRequest, HealthListResponse>;
}
