import type { EndpointSlice } from "@destination/core";
import { SERVICE_NAME_LABEL } from "./upstream-constants.js";

const DELETION_EXPECTED = -1;

type Tracked = Pick<EndpointSlice, "metadata">;

/**
 * The generation of every slice this controller last wrote, per Service, as Kubernetes'
 * EndpointSlice tracker keeps them: a sync that finds the slice cache behind its own writes
 * (an older generation, a slice it deleted, a slice it wrote missing) fails and is retried
 * rather than writing from stale state, and the cache's echo of a write triggers no sync.
 */
export class SliceTracker {
  readonly #byService = new Map<string, Map<string, number>>();

  /** A slice was written; its events up to this generation are our own. */
  update(slice: Tracked): void {
    this.#generations(slice, true)?.set(uidOf(slice), slice.metadata.generation ?? 0);
  }

  /** A slice was deleted by us; its delete event is expected. */
  expectDeletion(slice: Tracked): void {
    this.#generations(slice, true)?.set(uidOf(slice), DELETION_EXPECTED);
  }

  has(slice: Tracked): boolean {
    return this.#generations(slice, false)?.has(uidOf(slice)) ?? false;
  }

  /** False for the echo of our own write: a tracked slice at or below its tracked generation. */
  shouldSync(slice: Tracked): boolean {
    const tracked = this.#generations(slice, false)?.get(uidOf(slice));
    return tracked === undefined || (slice.metadata.generation ?? 0) > tracked;
  }

  /** A tracked slice was deleted; true when we deleted it, false when someone else did. */
  handleDeletion(slice: Tracked): boolean {
    const generations = this.#generations(slice, false);
    if (generations === undefined) return true;
    const tracked = generations.get(uidOf(slice));
    generations.delete(uidOf(slice));
    return tracked === undefined || tracked === DELETION_EXPECTED;
  }

  /** The Service is gone: forget its slices. */
  deleteService(namespace: string, name: string): void {
    this.#byService.delete(`${namespace}/${name}`);
  }

  /**
   * True when the cached slices of the Service are behind what we wrote: one is older than
   * written, one we deleted is still there, or one we wrote is missing.
   */
  staleSlices(namespace: string, name: string, cached: readonly Tracked[]): boolean {
    const generations = this.#byService.get(`${namespace}/${name}`);
    if (generations === undefined) return false;
    const seen = new Set<string>();
    for (const slice of cached) {
      const uid = uidOf(slice);
      seen.add(uid);
      const tracked = generations.get(uid);
      if (tracked === undefined) continue;
      if (tracked === DELETION_EXPECTED || tracked > (slice.metadata.generation ?? 0)) return true;
    }
    for (const [uid, generation] of generations) {
      if (generation !== DELETION_EXPECTED && !seen.has(uid)) return true;
    }
    return false;
  }

  #generations(slice: Tracked, create: boolean): Map<string, number> | undefined {
    const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    if (service === undefined) return undefined;
    const key = `${slice.metadata.namespace ?? ""}/${service}`;
    let generations = this.#byService.get(key);
    if (generations === undefined && create) {
      generations = new Map();
      this.#byService.set(key, generations);
    }
    return generations;
  }
}

function uidOf(slice: Tracked): string {
  return slice.metadata.uid ?? "";
}
