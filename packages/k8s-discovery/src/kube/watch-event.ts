import type { KubeObject } from "@destination/core";

/** The `Status` object of an `ERROR` event or a failed request. */
export interface KubeStatus {
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  /** The `type` of each of `details.causes` (e.g. `NamespaceTerminating` on a refused create). */
  readonly causes?: readonly string[];
}

/** One event of a watch stream, validated. */
export type WatchEvent =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED"; readonly object: KubeObject }
  | { readonly type: "BOOKMARK"; readonly resourceVersion: string }
  | { readonly type: "ERROR"; readonly status: KubeStatus };

/** A line that is not a watch event; the stream is not to be trusted after it. */
export class WatchEventDecodeError extends Error {
  override readonly name = "WatchEventDecodeError";
}

/** Parses one line of a watch response. Throws `WatchEventDecodeError`. */
export function parseWatchEvent(line: string): WatchEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new WatchEventDecodeError(`not JSON: ${(err as Error).message}`);
  }
  if (!isRecord(value) || !isRecord(value.object)) {
    throw new WatchEventDecodeError("not a watch event: no type and object");
  }
  const object = value.object;
  switch (value.type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      const metadata = isRecord(object.metadata) ? object.metadata : undefined;
      if (typeof metadata?.name !== "string" || metadata.name === "") {
        throw new WatchEventDecodeError(`${value.type} event for an object without a name`);
      }
      return { type: value.type, object: object as unknown as KubeObject };
    }
    case "BOOKMARK": {
      const metadata = isRecord(object.metadata) ? object.metadata : {};
      const resourceVersion = metadata.resourceVersion;
      if (typeof resourceVersion !== "string" || resourceVersion === "") {
        throw new WatchEventDecodeError("BOOKMARK event without a resourceVersion");
      }
      return { type: "BOOKMARK", resourceVersion };
    }
    case "ERROR":
      return { type: "ERROR", status: toStatus(object) };
    default:
      throw new WatchEventDecodeError(`unknown watch event type ${JSON.stringify(value.type)}`);
  }
}

/** The resource version is too old to watch from: list again (`410 Gone`, reason `Expired`). */
export function isGone(status: KubeStatus): boolean {
  return status.code === 410 || status.reason === "Expired" || status.reason === "Gone";
}

export function toStatus(value: unknown): KubeStatus {
  if (!isRecord(value)) return {};
  return {
    ...(typeof value.code === "number" ? { code: value.code } : {}),
    ...(typeof value.reason === "string" ? { reason: value.reason } : {}),
    ...(typeof value.message === "string" ? { message: value.message } : {}),
    ...causesOf(value.details),
  };
}

function causesOf(details: unknown): { causes?: string[] } {
  if (!isRecord(details) || !Array.isArray(details.causes)) return {};
  const causes = details.causes.flatMap((c) =>
    isRecord(c) && typeof c.type === "string" ? [c.type] : [],
  );
  return causes.length > 0 ? { causes } : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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

/**
 * Where a list/watch loop stands: the resourceVersion to watch from, or none when the next step
 * must be a list (at the start, and after the version expired).
 */
export class WatchPosition {
  #resourceVersion: string | undefined;

  /** The version to resume watching from; undefined means list first. */
  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  get mustList(): boolean {
    return this.#resourceVersion === undefined;
  }

  /** A list returned this collection version. */
  listed(resourceVersion: string): void {
    this.#resourceVersion = resourceVersion === "" ? undefined : resourceVersion;
  }

  /**
   * An event arrived: object events and bookmarks move the position to their object's version,
   * so a restarted watch neither replays nor skips events. Errors leave it.
   */
  observed(event: WatchEvent): void {
    if (event.type === "BOOKMARK") this.#resourceVersion = event.resourceVersion;
    else if (event.type !== "ERROR") {
      const version = event.object.metadata.resourceVersion;
      if (version) this.#resourceVersion = version;
    }
  }

  /** The server no longer has history back to this version (`410 Gone`): list again. */
  expired(): void {
    this.#resourceVersion = undefined;
  }
}
