/** The gRPC status a lookup failure maps to; see README "Lookup errors". */
export type WorkloadLookupErrorCode = "FAILED_PRECONDITION" | "NOT_FOUND" | "UNKNOWN";

/**
 * Why `WorkloadWatcher.subscribe` could not resolve its target. The server answers the stream
 * with `code` and `message` as they are, so messages match upstream's text exactly.
 */
export class WorkloadLookupError extends Error {
  override readonly name = "WorkloadLookupError";

  constructor(
    readonly code: WorkloadLookupErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
