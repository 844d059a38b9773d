import { EventEmitter } from "node:events";
import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { destinationApiFiles, file_grpc_health_v1_health } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";
import type { GrpcHttp2Server } from "../transport/grpc-http2-server.js";
import { frameMessage } from "../transport/message-frames.js";
import type { ServerCall } from "../transport/server-call.js";
import { Status } from "../transport/status-code.js";

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
 * The services are registered at once, but @grpc/reflection (protobufjs underneath, parsing its
 * .proto files) is loaded by the first reflection call, not at every start: on the way to ready
 * it cost a tenth of the main thread's time. Until then the calls carry bytes; the library's
 * own definitions decode and encode them once it is there.
 *
 * @grpc/reflection indexes nothing but the `fileDescriptorProtos` of the package definition it
 * is given, so one entry carrying our descriptors is the whole input it needs.
 */
export function addReflection(server: GrpcHttp2Server): void {
  let loading: Promise<Map<string, LoadedMethod>> | undefined;
  const load = () => {
    loading ??= loadReflection();
    return loading;
  };
  for (const version of ["v1", "v1alpha"]) {
    const path = `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`;
    server.handle(path, (call) =>
      relay(
        call,
        load().then((methods) => methods.get(path) as LoadedMethod),
      ),
    );
  }
}

/** The library's handler of one path, with the definition that (de)serializes its messages. */
interface LoadedMethod {
  readonly definition: grpc.MethodDefinition<unknown, unknown>;
  readonly handler: (call: grpc.ServerDuplexStream<unknown, unknown>) => void;
}

async function loadReflection(): Promise<Map<string, LoadedMethod>> {
  const { ReflectionService } = await import("@grpc/reflection");
  const descriptors = {
    format: "Protocol Buffer 3 FileDescriptorProto",
    type: {},
    fileDescriptorProtos: servedFileDescriptors(),
  };
  const pkg = { "destination.served-files": descriptors } as unknown as PackageDefinition;
  // The library registers its services on a server; this one only notes what it registers.
  const methods = new Map<string, LoadedMethod>();
  const recorder = {
    addService(service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      for (const [name, definition] of Object.entries(service)) {
        methods.set(definition.path, {
          definition: definition as grpc.MethodDefinition<unknown, unknown>,
          handler: implementation[name] as LoadedMethod["handler"],
        });
      }
    },
  };
  new ReflectionService(pkg).addToServer(recorder as unknown as grpc.Server);
  return methods;
}

/**
 * Runs the library's handler on a stream of bytes: requests are decoded and responses encoded
 * with the library's definition, in order, once it has loaded.
 */
function relay(call: ServerCall, method: Promise<LoadedMethod>): void {
  const inner = new EventEmitter() as EventEmitter & {
    write(message: unknown): boolean;
    end(): void;
  };
  let chain: Promise<unknown> = method.then(({ definition, handler }) => {
    inner.write = (message) => call.write(frameMessage(definition.responseSerialize(message)));
    inner.end = () => call.end(Status.OK);
    handler(inner as unknown as grpc.ServerDuplexStream<unknown, unknown>);
    return definition;
  });
  const next = (step: (definition: grpc.MethodDefinition<unknown, unknown>) => void) => {
    chain = chain.then((definition) => {
      step(definition as grpc.MethodDefinition<unknown, unknown>);
      return definition;
    });
  };
  call.read({
    message: (bytes) =>
      next((definition) => inner.emit("data", definition.requestDeserialize(bytes))),
    halfClose: () => next(() => inner.emit("end")),
  });
  call.onAbort(() => next(() => inner.emit("cancelled")));
  chain.catch((err: unknown) => call.fail(err));
}
