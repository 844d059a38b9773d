import { fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  create,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthListRequestSchema,
  HealthListResponseSchema,
  HealthService,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "@destination/proto";
import type { GrpcHttp2Server } from "../transport/grpc-http2-server.js";
import { frameMessage } from "../transport/message-frames.js";
import { serverStreaming, unary } from "../transport/method-handlers.js";
import { Status } from "../transport/status-code.js";
import { StatusError } from "../transport/status-error.js";

export { ServingStatus };

const HEALTH_METHODS = {
  check: HealthService.check.path,
  watch: HealthService.watch.path,
  list: HealthService.list.path,
} as const;

// As grpc-health-check answers a List of more services (health.proto asks for a cap).
const LIST_LIMIT = 100;

/**
 * The gRPC health service (grpc.health.v1.Health): the serving status of each named service,
 * `""` for the server as a whole. Check answers NOT_FOUND for a name it does not know, Watch
 * sends the current status (SERVICE_UNKNOWN for an unknown name) and every change after it,
 * List gives them all. Our own over the generated schemas rather than grpc-health-check, which
 * parses its .proto with protobufjs at every start.
 */
export class HealthStatuses {
  readonly #statuses = new Map<string, ServingStatus>();
  readonly #watchers = new Map<string, Set<(status: ServingStatus) => void>>();

  constructor(initial: Readonly<Record<string, ServingStatus>>) {
    for (const [service, serving] of Object.entries(initial)) this.#statuses.set(service, serving);
  }

  setStatus(service: string, serving: ServingStatus): void {
    this.#statuses.set(service, serving);
    for (const watcher of this.#watchers.get(service) ?? []) watcher(serving);
  }

  addToServer(server: GrpcHttp2Server): void {
    const decode = (bytes: Buffer) => fromBinary(HealthCheckRequestSchema, bytes);
    server.handle(
      HEALTH_METHODS.check,
      unary(HEALTH_METHODS.check, decode, (request) => {
        const serving = this.#statuses.get(request.service);
        if (serving === undefined) {
          throw new StatusError(
            Status.NOT_FOUND,
            `Health status unknown for service ${request.service}`,
          );
        }
        return toBinary(
          HealthCheckResponseSchema,
          create(HealthCheckResponseSchema, { status: serving }),
        );
      }),
    );
    server.handle(
      HEALTH_METHODS.watch,
      serverStreaming(HEALTH_METHODS.watch, decode, (call, request) => {
        const service = request.service;
        const send = (serving: ServingStatus) => {
          const response = create(HealthCheckResponseSchema, { status: serving });
          call.write(frameMessage(toBinary(HealthCheckResponseSchema, response)));
        };
        let watchers = this.#watchers.get(service);
        if (watchers === undefined) {
          watchers = new Set();
          this.#watchers.set(service, watchers);
        }
        watchers.add(send);
        call.onAbort(() => {
          watchers.delete(send);
          if (watchers.size === 0 && this.#watchers.get(service) === watchers) {
            this.#watchers.delete(service);
          }
        });
        send(this.#statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN);
      }),
    );
    server.handle(
      HEALTH_METHODS.list,
      unary(
        HEALTH_METHODS.list,
        (bytes) => fromBinary(HealthListRequestSchema, bytes),
        () => {
          if (this.#statuses.size > LIST_LIMIT) {
            throw new StatusError(Status.RESOURCE_EXHAUSTED, "Too many services to list.");
          }
          const statuses: Record<string, { status: ServingStatus }> = {};
          for (const [service, serving] of this.#statuses) statuses[service] = { status: serving };
          return toBinary(HealthListResponseSchema, create(HealthListResponseSchema, { statuses }));
        },
      ),
    );
  }
}
