// The file descriptors behind the Destination API, for gRPC server reflection and for tools
// that need a registry (e.g. proto JSON with google.protobuf.Any).
import { createRegistry, type DescFile, type Registry } from "@bufbuild/protobuf";
import { file_google_protobuf_duration } from "@bufbuild/protobuf/wkt";
import { file_destination } from "./gen/destination_pb.js";
import { file_http_types } from "./gen/http_types_pb.js";
import { file_meta } from "./gen/meta_pb.js";
import { file_net } from "./gen/net_pb.js";

/** Every file of the API, dependencies before dependents. `file.proto` is the
 * FileDescriptorProto, e.g. to serialize for reflection. */
export const destinationApiFiles: readonly DescFile[] = [
  file_google_protobuf_duration,
  file_http_types,
  file_meta,
  file_net,
  file_destination,
];

/** The gRPC health service's schema (grpc/health/v1/health.proto as published in grpc/grpc-proto),
 * compiled like the API so that server reflection describes it exactly as protoc would. */
export { file_grpc_health_v1_health } from "./gen/grpc/health/v1/health_pb.js";

/** Every message, enum and service of the API, e.g. for `toJson(..., { registry })`. */
export const destinationApiRegistry: Registry = createRegistry(...destinationApiFiles);
