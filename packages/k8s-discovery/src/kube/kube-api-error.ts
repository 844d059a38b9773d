import type { KubeStatus } from "./watch-event.js";

/** A response other than 2xx, with the server's `Status` when it sent one. */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  constructor(
    readonly statusCode: number,
    readonly status: KubeStatus,
    path: string,
  ) {
    super(`${path}: HTTP ${statusCode}${status.message ? `: ${status.message}` : ""}`);
  }
}
