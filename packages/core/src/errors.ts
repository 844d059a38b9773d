/**
 * A lookup for a Service that cannot be served: an `ExternalName` Service has no endpoints and
 * no opaque ports to watch, so subscribing to one fails. The server answers it with
 * `INVALID_ARGUMENT` and its own message; this text never reaches a client.
 */
export class InvalidServiceError extends Error {
  override readonly name = "InvalidServiceError";
  constructor(
    readonly namespace: string,
    readonly service: string,
  ) {
    super(`Invalid k8s service ${namespace}/${service}`);
  }
}
