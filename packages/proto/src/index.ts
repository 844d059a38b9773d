// Public API of @destination/proto: the wire schema of the Linkerd destination API and what it
// takes to speak it from TypeScript. It re-exports the protobuf-es runtime functions its users
// call, so that the whole workspace shares one copy of @bufbuild/protobuf.

// For users: the generated schema, the protobuf-es runtime to build, encode and read its
// messages, address and duration helpers, and the comparison of what two answers announce.

export type {
  DescMessage,
  JsonReadOptions,
  JsonValue,
  JsonWriteOptions,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";
export {
  clone,
  create,
  equals,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  toJsonString,
} from "@bufbuild/protobuf";
export type { Duration } from "@bufbuild/protobuf/wkt";
export { DurationSchema, file_google_protobuf_duration } from "@bufbuild/protobuf/wkt";
export {
  InvalidAddressError,
  ipAddressFromBytes,
  ipAddressFromString,
  ipAddressToBytes,
  ipAddressToString,
  ipBytesFromString,
  ipBytesToString,
  tcpAddressFromString,
  tcpAddressToString,
} from "./address.js";
export { durationFromMs, durationFromNanos, durationToMs, durationToNanos } from "./duration.js";
export {
  type AnnouncedEndpoint,
  compareEndpointViews,
  type EndpointDifference,
  EndpointView,
  type EndpointViewDifferences,
  sameAnnouncement,
} from "./endpoint-view.js";
export * from "./gen/destination_pb.js";
export * from "./gen/http_types_pb.js";
export * from "./gen/meta_pb.js";
export * from "./gen/net_pb.js";
export { differingFields } from "./message-fields.js";

// For authors of servers: the grpc-js service definitions and handler types, updates encoded
// once for many streams, the descriptors server reflection serves, and gRPC health for a client
// that checks a server.

export {
  destinationApiFiles,
  destinationApiRegistry,
  file_grpc_health_v1_health,
} from "./descriptors.js";
export { HealthCheckRequestSchema } from "./gen/grpc/health/v1/health_pb.js";
export { HealthService } from "./health-service.js";
export {
  DestinationMethodPath,
  type DestinationProfileOrBytes,
  type DestinationServer,
  DestinationService,
  encodeDestinationProfile,
  encodeUpdate,
  type GetCall,
  type GetHandler,
  type GetProfileCall,
  type GetProfileHandler,
  type UpdateOrBytes,
} from "./service.js";
