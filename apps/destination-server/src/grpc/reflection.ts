import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { destinationApiFiles, file_grpc_health_v1_health } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import type { EnumTypeDefinition, PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";

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
 * Server reflection (grpc.reflection.v1 and v1alpha) by @grpc/reflection, so that
 * `grpcurl -plaintext` lists, describes and calls the services without .proto files.
 *
 * The library indexes the `fileDescriptorProtos` of each entry of the package definition it is
 * given, and nothing else of them; one entry carrying our descriptors is the whole input.
 */
export function addReflection(server: Pick<grpc.Server, "addService">): void {
  const descriptors: EnumTypeDefinition = {
    format: "Protocol Buffer 3 EnumDescriptorProto",
    type: {},
    fileDescriptorProtos: servedFileDescriptors(),
  };
  const pkg: PackageDefinition = { "destination.served-files": descriptors };
  new ReflectionService(pkg).addToServer(server);
}
