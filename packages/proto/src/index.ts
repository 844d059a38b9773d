// Public API of @destination/proto. Consumers import protobuf-es runtime functions from here too,
// so that the whole workspace shares one copy of @bufbuild/protobuf.

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
  fromJsonString,
  isMessage,
  toBinary,
  toJson,
  toJsonString,
} from "@bufbuild/protobuf";
export type { Duration, DurationJson } from "@bufbuild/protobuf/wkt";
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
export {
  destinationApiFiles,
  destinationApiRegistry,
  file_grpc_health_v1_health,
} from "./descriptors.js";
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
export {
  type HealthCheckRequest,
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
  type HealthListRequest,
  HealthListRequestSchema,
  type HealthListResponse,
  HealthListResponseSchema,
} from "./gen/grpc/health/v1/health_pb.js";
export * from "./gen/http_types_pb.js";
export * from "./gen/meta_pb.js";
export * from "./gen/net_pb.js";
export { type HealthServer, HealthService } from "./health-service.js";
export { differingFields } from "./message-fields.js";
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
