import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { destinationApiFiles } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import { loadFileDescriptorSetFromBuffer, loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { protoPath as healthProtoPath } from "grpc-health-check";

/**
 * Server reflection (so `grpcurl -plaintext` works without .proto files), built from the
 * descriptors compiled into @destination/proto rather than from files on disk, plus the health
 * service's own definition.
 */
export function addReflection(server: grpc.Server): void {
  const descriptorSet = toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, { file: destinationApiFiles.map((f) => f.proto) }),
  );
  const destination = loadFileDescriptorSetFromBuffer(Buffer.from(descriptorSet));
  const health = loadSync(healthProtoPath);
  new ReflectionService({ ...destination, ...health }).addToServer(server);
}
