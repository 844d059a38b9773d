import {
  create,
  HealthCheckResponseSchema,
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
    const { check, watch, list } = HealthService;
    server.handle(
      check.path,
      unary(check, (request) => {
        const serving = this.#statuses.get(request.service);
        if (serving === undefined) {
          throw new StatusError(
            Status.NOT_FOUND,
            `Health status unknown for service ${request.service}`,
          );
        }
        return create(HealthCheckResponseSchema, { status: serving });
      }),
    );
    server.handle(
      watch.path,
      serverStreaming(watch, (call, request) => {
        const service = request.service;
        const send = (serving: ServingStatus) => {
          const response = create(HealthCheckResponseSchema, { status: serving });
          call.write(frameMessage(watch.responseSerialize(response)));
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
      list.path,
      unary(list, () => {
        if (this.#statuses.size > LIST_LIMIT) {
          throw new StatusError(Status.RESOURCE_EXHAUSTED, "Too many services to list.");
        }
        const statuses: Record<string, { status: ServingStatus }> = {};
        for (const [service, serving] of this.#statuses) statuses[service] = { status: serving };
        return create(HealthListResponseSchema, { statuses });
      }),
    );
  }
}
