import type { IncomingMessage } from "node:http";
import { type Clock, type KubeObject, type Logger, systemClock } from "@destination/core";
import type { WatchErrorReason, WatchEventType } from "../cluster-metrics.js";
import { apiVersionOf, toObjectMetadata } from "../resource-kind.js";
import { projectObject } from "../validation/object-schemas.js";
import { DEFAULT_API_SILENCE_TIMEOUT_MS, SilenceWatchdog, watchSilenceMs } from "./api-liveness.js";
import {
  type ApiResource,
  collectionPath,
  isProtobuf,
  PROTOBUF_MEDIA_TYPE,
  PROTOBUF_METADATA_ACCEPT,
  PROTOBUF_METADATA_LIST_ACCEPT,
} from "./api-resource.js";
import { Backoff, type BackoffPolicy, DEFAULT_BACKOFF } from "./backoff.js";
import { forEachChunk, NdjsonLines } from "./body-chunks.js";
import {
  connectionErrorOf,
  KubeApiError,
  type KubeHttpClient,
  type KubeRequest,
} from "./kube-http.js";
import { ListItems } from "./list-items.js";
import {
  type ItemReader,
  metadataItemReader,
  PROTOBUF_ITEM_READERS,
  ProtobufListItems,
} from "./protobuf-list-items.js";
import { ProtobufWatchFrames, readProtobufWatchEvent } from "./protobuf-watch-events.js";
import { isGone, parseWatchEvent, type WatchEvent, WatchPosition } from "./watch-event.js";

/** Where a list/watch loop puts what it sees; a `MemoryCache` is one. */
export interface WatchStore<T extends KubeObject> {
  /** `typed`: the object was read from protobuf, its fields typed by its reader. */
  apply(obj: T, options?: { typed?: boolean }): void;
  remove(namespace: string | undefined, name: string): unknown;
  /**
   * A full list: the first one syncs the store, later ones reconcile it (a relist). `typed`:
   * every object was read from protobuf, its fields typed by its reader.
   */
  replace(objects: readonly T[], options?: { typed?: boolean }): void;
}

/** The counters of one loop (`ClusterMetrics` bound to a kind). */
export interface ReflectorMetrics {
  watchRestarted(): void;
  relisted(): void;
  errored(reason: WatchErrorReason): void;
  eventReceived(type: WatchEventType): void;
}

export const noopReflectorMetrics: ReflectorMetrics = {
  watchRestarted() {},
  relisted() {},
  errored() {},
  eventReceived() {},
};

export interface ReflectorOptions<T extends KubeObject> {
  readonly client: KubeHttpClient;
  readonly resource: ApiResource;
  /** Watch one namespace; all of them when undefined. */
  readonly namespace?: string;
  /** Keep only metadata, asking the server for `PartialObjectMetadata`. */
  readonly metadataOnly: boolean;
  readonly store: WatchStore<T>;
  readonly logger: Logger;
  readonly metrics: ReflectorMetrics;
  readonly backoff?: BackoffPolicy;
  /** The server ends each watch after a random number of seconds in this range. */
  readonly watchTimeoutSeconds?: readonly [min: number, max: number];
  /** Objects per list page. */
  readonly pageSize?: number;
  readonly random?: () => number;
  /**
   * The liveness bound (`api-liveness.ts`): a list body may not pause longer, and a watch must
   * show life within `watchSilenceMs` of it. 12 s by default.
   */
  readonly silenceTimeoutMs?: number;
  /**
   * The clock of the backoff, the silence watchdogs and the healthy-watch time; the system's by
   * default.
   */
  readonly clock?: Clock;
}

const DEFAULT_WATCH_TIMEOUT_SECONDS: readonly [number, number] = [300, 600];
const DEFAULT_PAGE_SIZE = 500;
// One page, or a whole list from the watch cache, is given this long.
const LIST_TIMEOUT_MS = 60_000;
// A watch that lasted this long without events still counts as healthy: it was not refused.
const HEALTHY_WATCH_MS = 5_000;

type WatchOutcome = "ended" | "expired" | "failed" | "stopped";

interface ListResponse {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: unknown;
  /** Read from protobuf: the items have their schema's types. */
  typed?: boolean;
}

interface ListResult<T> {
  items: T[];
  resourceVersion: string;
  /** Every page was read from protobuf. */
  typed: boolean;
}

/**
 * The list/watch loop of one resource: LIST (in pages), then WATCH from the list's
 * resourceVersion with bookmarks and a server-side timeout; resume from the last seen version
 * when a watch ends; LIST again and reconcile when the version expired (`410 Gone`); back off
 * (capped, full jitter) after failures and after watches that end without delivering anything,
 * so it never spins. Failures are logged and counted, never thrown.
 */
export class Reflector<T extends KubeObject> {
  readonly #options: ReflectorOptions<T>;
  readonly #stop = new AbortController();
  readonly #backoff: Backoff;
  readonly #random: () => number;
  readonly #clock: Clock;
  readonly #path: string;
  readonly #where: Record<string, string>;
  readonly #silenceMs: number;
  #metadataAccepted = true;
  readonly #metadataItems: ItemReader;
  #running: Promise<void> | undefined;
  /** The open watch's abort, so a forced relist can end it. */
  #watchAbort: AbortController | undefined;
  /** A forced relist is due; the callers of `relist()` waiting for it. */
  #relistDue = false;
  #relistWaiters: (() => void)[] = [];

  constructor(options: ReflectorOptions<T>) {
    this.#options = options;
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? systemClock;
    this.#silenceMs = options.silenceTimeoutMs ?? DEFAULT_API_SILENCE_TIMEOUT_MS;
    this.#backoff = new Backoff(options.backoff ?? DEFAULT_BACKOFF, this.#random);
    this.#path = collectionPath(options.resource, options.namespace);
    this.#metadataItems = metadataItemReader(options.resource);
    this.#where = {
      kind: options.resource.kind,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    };
  }

  start(): void {
    // The loop handles its own failures; this only keeps a bug from becoming a crash.
    this.#running ??= this.#run().catch((err: unknown) => {
      this.#options.logger.error(`the ${this.#options.resource.plural} list/watch loop stopped`, {
        ...this.#where,
        error: describe(err),
      });
    });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
    for (const resolve of this.#relistWaiters.splice(0)) resolve();
  }

  /**
   * Forces a consistent list now, reconciled with the store as after a `410 Gone` (changed
   * objects are updates, vanished ones deletes, unchanged ones nothing): the open watch is
   * ended and the loop lists before watching again. The audit uses it to heal a cache that
   * missed an event. Resolves once a list begun after this call has reached the store, or when
   * the loop stops; a failed list is retried by the loop as usual.
   */
  relist(): Promise<void> {
    if (this.#stopped || this.#running === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.#relistWaiters.push(resolve);
      this.#relistDue = true;
      this.#watchAbort?.abort();
    });
  }

  /**
   * One consistent list of the resource (paged as the loop pages, read and projected as the
   * loop reads), returned without touching the store: what the API server says now.
   */
  async listFresh(): Promise<T[]> {
    return (await this.#list("consistent")).items;
  }

  get #stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  async #run(): Promise<void> {
    const { store, metrics, logger } = this.#options;
    const position = new WatchPosition();
    let listed = false;
    while (!this.#stopped) {
      if (this.#relistDue) {
        this.#relistDue = false;
        position.expired();
      }
      if (position.mustList) {
        // Callers of relist() so far are answered by this list; later ones by the next.
        const waiting = this.#relistWaiters.splice(0);
        try {
          const { items, resourceVersion, typed } = await this.#list(
            listed ? "consistent" : "cache",
          );
          if (this.#stopped) return;
          store.replace(items, { typed });
          if (listed) metrics.relisted();
          listed = true;
          position.listed(resourceVersion);
          for (const resolve of waiting) resolve();
        } catch (err) {
          this.#relistWaiters.unshift(...waiting);
          if (this.#stopped) return;
          metrics.errored("list");
          logger.warn(`listing ${this.#options.resource.plural} failed; retrying`, {
            ...this.#where,
            attempt: this.#backoff.attempts + 1,
            error: describe(err),
          });
          await this.#sleep(this.#backoff.next());
          continue;
        }
      }
      if (this.#relistDue) continue; // asked for while the list above was under way
      const { outcome, healthy } = await this.#watch(position);
      if (outcome === "stopped" || this.#stopped) return;
      // Ended by relist(): list at once, no backoff, nothing counted as a restart.
      if (this.#relistDue) continue;
      if (healthy) this.#backoff.reset();
      if (outcome === "expired") {
        logger.info(`the ${this.#options.resource.plural} watch expired; listing again`, {
          ...this.#where,
        });
        position.expired();
      } else metrics.watchRestarted();
      if (outcome === "failed" || !healthy) await this.#sleep(this.#backoff.next());
    }
  }

  /**
   * The first list is read from the API server's watch cache (`resourceVersion=0`), as
   * client-go's reflector does: a consistent list is a quorum read of every object from etcd,
   * the heaviest request a client makes, and every replica makes it at every start. What the
   * cache holds may be a little older than etcd; the watch from its version then brings the
   * store up to date. A relist reads consistently: it follows a 410 Gone or a watch error, when
   * the store may already hold newer versions than a lagging cache, and a list from that cache
   * would take the store back in time.
   */
  async #list(from: "cache" | "consistent"): Promise<ListResult<T>> {
    try {
      return await this.#listPages(from);
    } catch (err) {
      // A continue token expired mid-list (410): the list starts over once, at the newest state.
      if (err instanceof ContinueExpired) return await this.#listPages("consistent");
      if (this.#refusedMetadata(err)) return await this.#listPages(from);
      throw err;
    }
  }

  async #listPages(from: "cache" | "consistent"): Promise<ListResult<T>> {
    const items: T[] = [];
    let resourceVersion = "";
    let typed = true;
    let token: string | undefined;
    do {
      let page: ListResponse;
      try {
        page = await this.#listPage(
          {
            path: this.#path,
            // The watch cache ignores `limit` and answers `resourceVersion=0` in one response;
            // without one the server pages as asked. The continue token carries the version of
            // the first page, and the server refuses a resourceVersion alongside it.
            query: {
              limit: this.#options.pageSize ?? DEFAULT_PAGE_SIZE,
              continue: token,
              resourceVersion: from === "cache" && token === undefined ? "0" : undefined,
            },
            accept: this.#listAccept(),
            timeoutMs: LIST_TIMEOUT_MS,
            // The API server encodes a list whole before its first byte: a big one may take
            // longer than the silence bound to start, never longer than its deadline.
            headersTimeoutMs: LIST_TIMEOUT_MS,
          },
          items,
        );
      } catch (err) {
        if (token !== undefined && err instanceof KubeApiError && err.statusCode === 410) {
          throw new ContinueExpired();
        }
        throw err;
      }
      // An empty metadata-only list (PartialObjectMetadataList) arrives with `items: null`.
      if (
        (page.items !== null && !Array.isArray(page.items)) ||
        typeof page.metadata?.resourceVersion !== "string"
      ) {
        throw new Error("the list response has no items or no resourceVersion");
      }
      resourceVersion = page.metadata.resourceVersion;
      token = page.metadata.continue || undefined;
      typed &&= page.typed === true;
    } while (token !== undefined);
    return { items, resourceVersion, typed };
  }

  /**
   * One list response, its items normalised into `items` as they arrive, each parsed on its
   * own: a full object is garbage as soon as it is projected, never all of them at once.
   */
  async #listPage(request: KubeRequest, items: T[]): Promise<ListResponse> {
    const controller = new AbortController();
    const stop = () => controller.abort();
    this.#stop.signal.addEventListener("abort", stop);
    let watchdog: SilenceWatchdog | undefined;
    try {
      const response = await this.#options.client.open({ ...request, signal: controller.signal });
      // A list body that pauses past the bound is given up: the connection is destroyed and
      // the list is tried again after the backoff. On real time, as the client's response
      // deadline: an I/O bound, not a schedule.
      const silenceMs = this.#silenceMs;
      watchdog = new SilenceWatchdog(systemClock, silenceMs, () =>
        controller.abort(new Error(`the list body paused for ${silenceMs / 1000} s`)),
      );
      return await this.#readListPage(response, items, watchdog);
    } catch (err) {
      // The watchdog's reason says more than the AbortError it caused.
      if (controller.signal.aborted && !this.#stopped) throw controller.signal.reason;
      throw err;
    } finally {
      watchdog?.stop();
      this.#stop.signal.removeEventListener("abort", stop);
    }
  }

  async #readListPage(
    response: IncomingMessage,
    items: T[],
    watchdog: SilenceWatchdog,
  ): Promise<ListResponse> {
    try {
      const readItem = this.#protobufItems();
      if (readItem !== undefined && isProtobuf(response.headers["content-type"])) {
        // Read straight into the projection, typed by the schema: nothing to normalise.
        const reader = new ProtobufListItems(readItem);
        await forEachChunk(response, (chunk) => {
          watchdog.touch();
          for (const item of reader.push(chunk)) items.push(item as T);
        });
        return { ...reader.end(), typed: true };
      }
      const reader = new ListItems();
      await forEachChunk(response, (chunk) => {
        watchdog.touch();
        for (const item of reader.push(chunk)) {
          if (isObject(item)) items.push(this.#normalise(item));
        }
      });
      return reader.end() as ListResponse;
    } finally {
      response.destroy();
    }
  }

  async #watch(position: WatchPosition): Promise<{ outcome: WatchOutcome; healthy: boolean }> {
    const [min, max] = this.#options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    const timeoutSeconds = Math.round(min + this.#random() * (max - min));
    const controller = new AbortController();
    this.#watchAbort = controller;
    const stop = () => controller.abort();
    this.#stop.signal.addEventListener("abort", stop);
    // The watch must show life (an event, a bookmark, any byte) within the bound, else its
    // connection is destroyed and the watch resumes from its resourceVersion.
    let silent = false;
    const lifeMs = watchSilenceMs(this.#silenceMs);
    const watchdog = new SilenceWatchdog(this.#clock, lifeMs, () => {
      silent = true;
      controller.abort();
    });
    const startedAt = this.#clock.now();
    let delivered = false;
    const healthy = () => delivered || this.#clock.now() - startedAt >= HEALTHY_WATCH_MS;
    try {
      const response = await this.#options.client.open({
        path: this.#path,
        query: {
          watch: true,
          resourceVersion: position.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        accept: this.#watchAccept(),
        signal: controller.signal,
      });
      try {
        const readObject = this.#protobufItems();
        const typed = readObject !== undefined && isProtobuf(response.headers["content-type"]);
        this.#options.logger.debug(`watching ${this.#options.resource.plural}`, {
          ...this.#where,
          encoding: typed ? "protobuf" : "json",
        });
        // Method parameters are bivariant: either source is an EventSource<unknown>.
        const events: EventSource<unknown> =
          typed && readObject !== undefined ? protobufEvents(readObject) : jsonEvents();
        let stoppedAt: "expired" | "failed" | undefined;
        await forEachChunk(response, (chunk, stop) => {
          watchdog.touch();
          for (const unit of events.push(chunk)) {
            const step = this.#handle(events, unit, position, typed);
            if (step === "delivered") delivered = true;
            else if (step !== "continue") {
              stoppedAt = step;
              stop();
              return;
            }
          }
        });
        if (stoppedAt !== undefined) return { outcome: stoppedAt, healthy: healthy() };
        for (const unit of events.end()) {
          const step = this.#handle(events, unit, position, typed);
          if (step === "expired" || step === "failed") return { outcome: step, healthy: healthy() };
        }
        return { outcome: "ended", healthy: healthy() };
      } catch (err) {
        const cause = connectionErrorOf(response);
        throw cause === undefined ? err : new Error(`${describe(err)}: ${cause.message}`);
      } finally {
        response.destroy();
      }
    } catch (err) {
      if (this.#stopped) return { outcome: "stopped", healthy: false };
      if (this.#relistDue) return { outcome: "ended", healthy: true };
      if (err instanceof KubeApiError && err.statusCode === 410) {
        return { outcome: "expired", healthy: false };
      }
      this.#refusedMetadata(err);
      this.#options.metrics.errored("watch");
      this.#options.logger.warn(`the ${this.#options.resource.plural} watch failed; resuming`, {
        ...this.#where,
        error: silent
          ? `no event, bookmark or byte from the API server for ${lifeMs / 1000} s`
          : describe(err),
      });
      return { outcome: "failed", healthy: healthy() };
    } finally {
      this.#watchAbort = undefined;
      watchdog.stop();
      this.#stop.signal.removeEventListener("abort", stop);
    }
  }

  /** Applies one event of the stream: a line of JSON, or a protobuf frame (`typed`). */
  #handle(
    events: EventSource<unknown>,
    unit: unknown,
    position: WatchPosition,
    typed: boolean,
  ): "continue" | "delivered" | "expired" | "failed" {
    const { store, metrics, logger } = this.#options;
    let event: WatchEvent;
    try {
      event = events.decode(unit);
    } catch (err) {
      metrics.errored("decode");
      logger.warn(`unreadable ${this.#options.resource.plural} watch event; resuming`, {
        ...this.#where,
        error: describe(err),
      });
      return "failed";
    }
    metrics.eventReceived(event.type);
    switch (event.type) {
      case "ERROR":
        if (isGone(event.status)) return "expired";
        metrics.errored("event");
        logger.warn(`the ${this.#options.resource.plural} watch reported an error; listing again`, {
          ...this.#where,
          code: event.status.code,
          reason: event.status.reason,
          error: event.status.message,
        });
        // Resuming from the same version can fail the same way forever (an API server answers
        // a watch through a compacted delete with a 500 every time), so the next attempt lists,
        // after the usual backoff, as client-go's reflector does.
        position.expired();
        return "failed";
      case "BOOKMARK":
        position.observed(event);
        return "delivered";
      case "DELETED": {
        const { namespace, name } = event.object.metadata;
        store.remove(namespace, name);
        position.observed(event);
        return "delivered";
      }
      default:
        // A protobuf object is already what its reader keeps: nothing to normalise.
        if (typed) store.apply(event.object as T, { typed });
        else store.apply(this.#normalise(event.object));
        position.observed(event);
        return "delivered";
    }
  }

  /**
   * Full objects carry their type (list items come without it) and are kept as projected (no
   * managedFields; of a Pod what is read); metadata-only objects become the resource's
   * metadata, whether the server sent metadata or, refusing that, full objects.
   */
  #normalise(obj: KubeObject): T {
    const { resource } = this.#options;
    if (this.#options.metadataOnly) return toObjectMetadata(obj, resource) as T;
    if (obj.kind && obj.apiVersion) return projectObject(obj) as T;
    return projectObject({ ...obj, apiVersion: apiVersionOf(resource), kind: resource.kind }) as T;
  }

  /** Lists of kinds read from protobuf accept it first, and JSON from a server without it. */
  #listAccept(): string {
    if (this.#protobufItems() === undefined) return "application/json";
    return this.#options.metadataOnly
      ? PROTOBUF_METADATA_LIST_ACCEPT
      : `${PROTOBUF_MEDIA_TYPE}, application/json`;
  }

  /** How a protobuf list of this loop is read, when it asks for one. */
  #protobufItems(): ItemReader | undefined {
    if (this.#options.metadataOnly) {
      return this.#metadataAccepted ? this.#metadataItems : undefined;
    }
    return PROTOBUF_ITEM_READERS[this.#options.resource.kind];
  }

  /** Watches of kinds read from protobuf accept it first, as their lists do. */
  #watchAccept(): string {
    if (this.#options.metadataOnly && this.#metadataAccepted) return PROTOBUF_METADATA_ACCEPT;
    return this.#protobufItems() === undefined
      ? "application/json"
      : `${PROTOBUF_MEDIA_TYPE}, application/json`;
  }

  /** True when the server refused metadata-only content (406): full objects from now on. */
  #refusedMetadata(err: unknown): boolean {
    const refused =
      this.#options.metadataOnly &&
      this.#metadataAccepted &&
      err instanceof KubeApiError &&
      err.statusCode === 406;
    if (refused) {
      this.#metadataAccepted = false;
      this.#options.logger.info(
        `the server refuses metadata-only ${this.#options.resource.plural}; reading full objects and keeping their metadata`,
        { ...this.#where },
      );
    }
    return refused;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stopped) return resolve();
      const done = () => {
        this.#clock.clearTimeout(timer);
        this.#stop.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = this.#clock.setTimeout(done, ms);
      this.#stop.signal.addEventListener("abort", done);
    });
  }
}

class ContinueExpired extends Error {}

/** The events of a watch response in one encoding: split as bytes arrive, then decoded. */
interface EventSource<U> {
  push(chunk: Buffer): U[];
  end(): U[];
  /** Throws when `unit` is not a watch event. */
  decode(unit: U): WatchEvent;
}

function jsonEvents(): EventSource<string> {
  const lines = new NdjsonLines();
  return { push: (chunk) => lines.push(chunk), end: () => lines.end(), decode: parseWatchEvent };
}

/** `application/vnd.kubernetes.protobuf;stream=watch`: frames, objects read by `readObject`. */
function protobufEvents(readObject: ItemReader): EventSource<Uint8Array> {
  const frames = new ProtobufWatchFrames();
  return {
    push: (chunk) => frames.push(chunk),
    end: () => {
      frames.end();
      return [];
    },
    decode: (frame) => readProtobufWatchEvent(frame, readObject),
  };
}

function isObject(value: unknown): value is KubeObject {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { metadata?: { name?: unknown } }).metadata?.name === "string"
  );
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
