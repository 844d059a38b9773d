import {
  create,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
  type HealthServer,
  HealthService,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "@destination/proto";
import { type Server, status } from "@grpc/grpc-js";

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

  addToServer(server: Server): void {
    const implementation: HealthServer = {
      check: (call, callback) => {
        const service = call.request.service;
        const serving = this.#statuses.get(service);
        if (serving === undefined) {
          callback({
            code: status.NOT_FOUND,
            details: `Health status unknown for service ${service}`,
          });
        } else callback(null, create(HealthCheckResponseSchema, { status: serving }));
      },
      watch: (call) => {
        const service = call.request.service;
        const send = (serving: ServingStatus) =>
          call.write(create(HealthCheckResponseSchema, { status: serving }));
        let watchers = this.#watchers.get(service);
        if (watchers === undefined) {
          watchers = new Set();
          this.#watchers.set(service, watchers);
        }
        watchers.add(send);
        call.on("cancelled", () => {
          watchers.delete(send);
          if (watchers.size === 0 && this.#watchers.get(service) === watchers) {
            this.#watchers.delete(service);
          }
        });
        send(this.#statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN);
      },
      list: (_call, callback) => {
        if (this.#statuses.size > LIST_LIMIT) {
          callback({ code: status.RESOURCE_EXHAUSTED, details: "Too many services to list." });
          return;
        }
        const statuses: Record<string, { status: ServingStatus }> = {};
        for (const [service, serving] of this.#statuses) statuses[service] = { status: serving };
        callback(null, create(HealthListResponseSchema, { statuses }));
      },
    };
    server.addService(HealthService, implementation);
  }
}
