import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { destinationApiFiles } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";

/**
 * Server reflection (so `grpcurl -plaintext` works without .proto files), built from the
 * descriptors compiled into @destination/proto rather than from files on disk, plus the health
 * service's own definition. Its libraries (protobufjs underneath) are imported here, not with
 * the server: loading and building them takes about 0.2 s that the caller can overlap.
 */
export async function addReflection(server: grpc.Server): Promise<void> {
  const [
    { loadFileDescriptorSetFromBuffer, loadSync },
    { ReflectionService },
    { protoPath: healthProtoPath },
  ] = await Promise.all([
    import("@grpc/proto-loader"),
    import("@grpc/reflection"),
    import("grpc-health-check"),
  ]);
  const descriptorSet = toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, { file: destinationApiFiles.map((f) => f.proto) }),
  );
  const destination = loadFileDescriptorSetFromBuffer(Buffer.from(descriptorSet));
  const health = loadSync(healthProtoPath);
  new ReflectionService({ ...destination, ...health }).addToServer(server);
}
