import { createHash } from "node:crypto";
import type { KubeObject, Owner, Pod } from "@destination/core";
import { type Clock, type Logger, silentLogger, systemClock, unrefTimer } from "@destination/core";
import type { Cluster } from "../cluster.js";
import { type ClusterMetrics, withDefaultMetrics } from "../cluster-metrics.js";
import { MemoryBackedCluster } from "../memory/memory-backed-cluster.js";
import { MemoryCluster } from "../memory/memory-cluster.js";
import { DEFAULT_RESYNC_MS, startPeriodicResync } from "../periodic-resync.js";
import type { ResourceKind } from "../resource-kind.js";
import { FolderWatcher } from "./folder-watcher.js";
import { ManifestDefinitions } from "./manifest-definitions.js";
import {
  describeLocation,
  type ParsedManifest,
  parseManifest,
  type YamlReader,
} from "./manifest-documents.js";
import {
  listManifestFiles,
  type ManifestFile,
  type ManifestListing,
  readManifestFiles,
} from "./manifest-files.js";

export interface ManifestsClusterOptions {
  /** The folder of `.yaml`, `.yml` and `.json` manifests, read recursively. */
  readonly dir: string;
  readonly logger?: Logger;
  /** The cluster's name in metrics; `local` by default. */
  readonly name?: string;
  /** Quiet time after the last file event before the folder is re-read; 100 ms by default. */
  readonly debounceMs?: number;
  /** Watch the folder for changes (default); when false, only `reload()` picks them up. */
  readonly watch?: boolean;
  /** Also re-read the folder this often; 0 (default) re-reads on file events only. */
  readonly pollMs?: number;
  /** Periodic resync (`update(obj, obj)` for every object); 10 min by default, 0 turns it off. */
  readonly resyncMs?: number;
  /** Only informer lag applies to files (objects with `managedFields` times). */
  readonly metrics?: Partial<ClusterMetrics>;
  /**
   * The clock of the debounce, polling, the emptiness confirmation and the periodic resync; the
   * system's by default.
   */
  readonly clock?: Clock;
}

/** A cluster whose objects are the manifests in a folder. */
export interface ManifestsCluster extends Cluster {
  /**
   * Re-reads the folder now and emits what changed; resolves once the events are delivered.
   * Not needed while watching, but useful after a bulk change or with `watch: false`.
   */
  reload(): Promise<void>;
}

/**
 * The manifests backend (the embedded default): every object in the folder's manifests, with the
 * add / update / delete events a cluster would emit as files are added, edited and deleted.
 * See README "Manifests backend".
 */
export function createManifestsCluster(options: ManifestsClusterOptions): ManifestsCluster {
  return new ManifestsBackend(options);
}

const DEFAULT_DEBOUNCE_MS = 100;
// Longest a burst of file events can postpone a re-read, in debounce periods.
const MAX_WAIT_DEBOUNCES = 5;

/** What is known about one file between re-reads. */
interface FileState {
  signature: string;
  /** Digest of the text last read: the same text is not parsed or reported again. */
  digest: string | undefined;
  /** The last read did not parse; the file's last good objects stay. */
  failing: boolean;
  /**
   * When the file was first found gone or empty while it still defined objects. An editor may
   * be between truncating and writing it, so its objects go only if it still is a debounce later.
   */
  vanishingSince: number | undefined;
}

class ManifestsBackend extends MemoryBackedCluster implements ManifestsCluster {
  readonly servedKinds;
  readonly #dir: string;
  readonly #logger: Logger;
  readonly #debounceMs: number;
  readonly #watch: boolean;
  readonly #pollMs: number;
  readonly #resyncMs: number;
  readonly #clock: Clock;
  readonly #definitions = new ManifestDefinitions();
  readonly #files = new Map<string, FileState>();
  /** What each object was last published as, by definition key. */
  readonly #published = new Map<string, { content: string; kind: ResourceKind; obj: KubeObject }>();
  #reportedConflicts = new Map<string, string>();
  #watcher: FolderWatcher | undefined;
  /** The `yaml` package, imported by `start()`. */
  #yaml: YamlReader | undefined;
  #stopResync: () => void = () => {};
  #confirmTimer: unknown;
  #scanning: Promise<void> | undefined;
  #scanAgain = false;
  #started = false;
  #stopped = false;

  constructor(options: ManifestsClusterOptions) {
    const logger = options.logger ?? silentLogger;
    super(
      // Documents are validated as they are parsed, where a warning can name the file.
      new MemoryCluster({
        ...(options.name === undefined ? {} : { name: options.name }),
        logger,
        validate: false,
      }),
      withDefaultMetrics(options.metrics),
    );
    this.#dir = options.dir;
    this.#logger = logger;
    this.#debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.#watch = options.watch ?? true;
    this.#pollMs = options.pollMs ?? 0;
    this.#resyncMs = options.resyncMs ?? DEFAULT_RESYNC_MS;
    this.#clock = options.clock ?? systemClock;
    this.servedKinds = this.memory.servedKinds;
  }

  podOwner(pod: Pod): Owner {
    return this.memory.podOwner(pod);
  }

  fetchPodOwner(pod: Pod): Promise<Owner> {
    return this.memory.fetchPodOwner(pod);
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("the manifests cluster was already started");
    this.#started = true;
    // The YAML parser and the watcher's library are imported now, not with the package.
    const [yaml, chokidar] = await Promise.all([
      import("yaml"),
      this.#watch ? import("chokidar") : undefined,
    ]);
    // `yaml` is CommonJS: its exports object is the default export, both in node and once
    // bundled (a bundle's dynamic-import chunk of a CommonJS module has only the default).
    this.#yaml = yaml.default;
    if (this.#stopped) return;
    if (chokidar !== undefined) {
      this.#watcher = new FolderWatcher(
        {
          dir: this.#dir,
          debounceMs: this.#debounceMs,
          maxWaitMs: this.#debounceMs * MAX_WAIT_DEBOUNCES,
          pollMs: this.#pollMs,
          logger: this.#logger,
          onChange: () => void this.#requestScan(),
          clock: this.#clock,
        },
        chokidar.watch,
      );
    }
    const initial = this.#scan(true);
    this.#scanning = initial;
    try {
      await initial;
      await this.#watcher?.ready;
    } catch (err) {
      await this.#watcher?.close();
      throw err;
    } finally {
      this.#scanning = undefined;
    }
    // The tree was listed while its watches were being set up: files changed meanwhile are
    // read again before start resolves.
    if (this.#watcher !== undefined || this.#scanAgain) await this.#requestScan();
    this.#stopResync = startPeriodicResync(this.#resyncMs, () => this.memory.resync(), this.#clock);
  }

  reload(): Promise<void> {
    if (!this.#started) return Promise.reject(new Error("reload() before start()"));
    return this.#requestScan();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const closing = this.#watcher?.close();
    this.#stopResync();
    this.#clock.clearTimeout(this.#confirmTimer);
    await this.#scanning?.catch(() => {});
    await closing;
  }

  /** Runs a re-read, or another one after the one running (which may have missed the change). */
  #requestScan(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#scanAgain = true;
    if (this.#scanning) return this.#scanning;
    const run = async () => {
      while (this.#scanAgain && !this.#stopped) {
        this.#scanAgain = false;
        try {
          await this.#scan(false);
        } catch (err) {
          this.#logger.error("re-reading the manifests folder failed", {
            dir: this.#dir,
            error: String(err),
          });
        }
      }
    };
    this.#scanning = run().finally(() => {
      this.#scanning = undefined;
    });
    return this.#scanning;
  }

  async #scan(initial: boolean): Promise<void> {
    let listing: ManifestListing;
    try {
      listing = await listManifestFiles(this.#dir);
    } catch (err) {
      const message = `cannot read the manifests folder ${this.#dir}: ${(err as Error).message}`;
      if (initial) throw new Error(message);
      this.#logger.error(message);
      listing = { files: new Map() }; // gone: so are its files, once confirmed
    }
    const files = listing.files;
    const changed = [...files.values()].filter((file) => {
      const state = this.#files.get(file.path);
      return state?.signature !== file.signature || state.vanishingSince !== undefined;
    });
    const reads: { file: ManifestFile; text: string }[] = [];
    for (const read of await readManifestFiles(changed)) {
      if (read.text === undefined)
        files.delete(read.file.path); // gone since: handled below
      else reads.push({ file: read.file, text: read.text });
    }
    if (this.#stopped) return;
    // The later write wins between files defining the same object.
    reads.sort((a, b) =>
      a.file.modifiedNs === b.file.modifiedNs
        ? compareText(a.file.path, b.file.path)
        : a.file.modifiedNs < b.file.modifiedNs
          ? -1
          : 1,
    );
    const now = this.#clock.now();
    for (const { file, text } of reads) this.#ingest(file, text, now);
    for (const path of [...this.#files.keys()]) {
      if (!files.has(path)) this.#vanish(path, now);
    }
    this.#reportConflicts();
    this.#publish(initial);
  }

  #ingest(file: ManifestFile, text: string, now: number): void {
    const digest = createHash("sha256").update(text).digest("hex");
    const state = this.#files.get(file.path) ?? {
      signature: file.signature,
      digest: undefined,
      failing: false,
      vanishingSince: undefined,
    };
    this.#files.set(file.path, state);
    state.signature = file.signature;
    if (state.digest === digest && state.vanishingSince === undefined) return;
    const isNewText = state.digest !== digest;
    state.digest = digest;
    if (this.#yaml === undefined) throw new Error("manifests read before start()");
    const parsed = parseManifest(text, file.format, this.#yaml);
    if (parsed.status === "unreadable") {
      state.failing = true;
      state.vanishingSince = undefined;
      if (isNewText) this.#reportUnreadable(file.path, parsed);
      return;
    }
    if (parsed.status === "empty" && this.#definitions.definedBy(file.path).length > 0) {
      if (!this.#confirmedGone(state, now)) return;
    }
    state.vanishingSince = undefined;
    if (state.failing) this.#logger.info(`manifest file ${file.path} loads again`);
    state.failing = false;
    if (isNewText) this.#reportSkipped(file.path, parsed);
    const duplicates = this.#definitions.setFile(file.path, parsed.objects);
    for (const [earlier, later] of duplicates) {
      this.#logger.warn(
        `${later.key} is defined twice in ${file.path} (${describeLocation(earlier.location)} and ${describeLocation(later.location)}); using the later one`,
        { file: file.path, object: later.key },
      );
    }
  }

  #vanish(path: string, now: number): void {
    const state = this.#files.get(path);
    if (state && this.#definitions.definedBy(path).length > 0 && !this.#confirmedGone(state, now))
      return;
    this.#files.delete(path);
    this.#definitions.removeFile(path);
  }

  /** True once a file has been gone or empty for a debounce period; until then, check again. */
  #confirmedGone(state: FileState, now: number): boolean {
    state.vanishingSince ??= now;
    const remaining = state.vanishingSince + this.#debounceMs - now;
    if (remaining <= 0) return true;
    this.#clock.clearTimeout(this.#confirmTimer);
    this.#confirmTimer = this.#clock.setTimeout(() => void this.#requestScan(), remaining);
    unrefTimer(this.#confirmTimer);
    return false;
  }

  #publish(initial: boolean): void {
    const current = this.#definitions.current();
    if (initial) {
      const byKind = new Map<ResourceKind, KubeObject[]>();
      for (const def of current) {
        const objects = byKind.get(def.kind) ?? [];
        objects.push(def.object);
        byKind.set(def.kind, objects);
        this.#published.set(def.key, { content: def.content, kind: def.kind, obj: def.object });
      }
      // Every cache is replaced, empty or not, so every cache is synced.
      for (const kind of APPLY_ORDER) {
        this.memory.replace(kind, byKind.get(kind) ?? []);
      }
      return;
    }
    const keys = new Set<string>();
    const changed: typeof current = [];
    for (const def of current) {
      keys.add(def.key);
      if (this.#published.get(def.key)?.content === def.content) continue;
      this.#published.set(def.key, { content: def.content, kind: def.kind, obj: def.object });
      changed.push(def);
    }
    // File order within a kind; across kinds, what others refer to first (see APPLY_ORDER).
    changed.sort((a, b) => APPLY_RANK[a.kind] - APPLY_RANK[b.kind]);
    for (const def of changed) this.memory.apply(def.object);
    const gone: { kind: ResourceKind; obj: KubeObject }[] = [];
    for (const [key, entry] of [...this.#published]) {
      if (keys.has(key)) continue;
      this.#published.delete(key);
      gone.push(entry);
    }
    gone.sort((a, b) => APPLY_RANK[b.kind] - APPLY_RANK[a.kind]);
    for (const { kind, obj } of gone) {
      this.memory.delete(kind, obj.metadata.namespace, obj.metadata.name);
    }
  }

  #reportUnreadable(path: string, parsed: ParsedManifest): void {
    const kept = this.#definitions.definedBy(path).length;
    for (const problem of parsed.problems) {
      const where = describeLocation(problem.location);
      this.#logger.warn(
        `manifest file ${path} does not parse (${where}: ${problem.reason}); ${
          kept > 0 ? `keeping its last ${kept} good object(s)` : "nothing loaded from it"
        }`,
        { file: path, document: problem.location.document, reason: problem.reason },
      );
    }
  }

  #reportSkipped(path: string, parsed: ParsedManifest): void {
    for (const problem of parsed.problems) {
      const where = describeLocation(problem.location);
      this.#logger.warn(`skipping an object in ${path} (${where}): ${problem.reason}`, {
        file: path,
        document: problem.location.document,
        ...(problem.location.item === undefined ? {} : { item: problem.location.item }),
        reason: problem.reason,
      });
    }
    for (const ignored of parsed.ignored) {
      this.#logger.debug(
        `ignoring ${ignored.apiVersion} ${ignored.kind} ${ignored.name} in ${path} (${describeLocation(ignored.location)}): not a kind the destination service reads`,
        { file: path },
      );
    }
  }

  #reportConflicts(): void {
    const reported = new Map<string, string>();
    for (const { key, winner, others } of this.#definitions.conflicts()) {
      const files = [winner.file, ...others.map((o) => o.file)];
      const signature = files.join("\n");
      reported.set(key, signature);
      if (this.#reportedConflicts.get(key) === signature) continue;
      this.#logger.warn(
        `${key} is defined in ${files.join(" and ")}; using ${winner.file}, written last`,
        { object: key, files, using: winner.file },
      );
    }
    this.#reportedConflicts = reported;
  }
}

/**
 * The order kinds reach the caches in one load or one batch of file changes: the objects others
 * refer to (nodes, owners, pods, workloads, Servers, Services) before the slices and Endpoints
 * that name them, so a slice written together with its pods finds them in the cache (a real
 * cluster's EndpointSlice controller only lists pods it has seen). Deletions go in reverse.
 */
const APPLY_ORDER: readonly ResourceKind[] = [
  "Node",
  "ReplicaSet",
  "Job",
  "Pod",
  "ExternalWorkload",
  "Server",
  "Service",
  "ServiceProfile",
  "Endpoints",
  "EndpointSlice",
];
const APPLY_RANK = Object.fromEntries(APPLY_ORDER.map((kind, i) => [kind, i])) as Record<
  ResourceKind,
  number
>;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
