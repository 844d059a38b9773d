import type { WatchEvent } from "./watch-event.js";

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
