/**
 * A lookup for a Service that cannot be served (an `ExternalName` Service, E-3 and O-3). The
 * server answers it with `INVALID_ARGUMENT` and its own message; this text never reaches a
 * client.
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
