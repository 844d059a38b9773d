import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { destinationApiFiles, file_grpc_health_v1_health } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";

/** Every file the server describes, dependencies first: the Destination API and gRPC health. */
const SERVED_FILES = [...destinationApiFiles, file_grpc_health_v1_health];

/**
 * The protoc-compiled FileDescriptorProtos, encoded as they are. Going through proto-loader's
 * `loadSync`/`loadFileDescriptorSetFromBuffer` instead rebuilds them from protobufjs objects,
 * which turns type references relative (`net.TcpAddress`) and renames map entries, and grpcurl
 * then refuses to describe or call anything.
 */
export function servedFileDescriptors(): Buffer[] {
  return SERVED_FILES.map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f.proto)));
}

/**
 * Server reflection (grpc.reflection.v1 and v1alpha), so that `grpcurl -plaintext` lists,
 * describes and calls the services without .proto files.
 *
 * @grpc/reflection indexes nothing but the `fileDescriptorProtos` of the package definition it
 * is given, so one entry carrying our descriptors is the whole input it needs. The library
 * (protobufjs underneath) is imported here, not with the server: loading it takes time that the
 * caller overlaps with the cache sync.
 */
export async function addReflection(server: grpc.Server): Promise<void> {
  const { ReflectionService } = await import("@grpc/reflection");
  const descriptors = {
    format: "Protocol Buffer 3 FileDescriptorProto",
    type: {},
    fileDescriptorProtos: servedFileDescriptors(),
  };
  const pkg = { "destination.served-files": descriptors } as unknown as PackageDefinition;
  new ReflectionService(pkg).addToServer(server);
}
