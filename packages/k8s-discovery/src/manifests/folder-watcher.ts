import { basename, resolve } from "node:path";
import { type Clock, type Logger, systemClock, unrefTimer } from "@destination/core";
import type { FSWatcher, watch } from "chokidar";

export interface FolderWatcherOptions {
  /** The folder whose tree is watched. */
  readonly dir: string;
  /** Quiet time after the last file event before `onChange` (an editor's save is several). */
  readonly debounceMs: number;
  /** Longest delay of `onChange` while events keep coming. */
  readonly maxWaitMs: number;
  /** Also call `onChange` this often (0: only on events); the fallback when watching fails. */
  readonly pollMs: number;
  readonly logger: Logger;
  readonly onChange: () => void;
  /** The clock of the debounce and of polling; the system's by default. */
  readonly clock?: Clock;
}

const FALLBACK_POLL_MS = 1000;
/**
 * chokidar drops a second `change` of a file within 50 ms of the first, so `onChange` waits at
 * least this long after an event: the re-read then sees the write it dropped.
 */
const CHOKIDAR_CHANGE_THROTTLE_MS = 50;

/**
 * Tells its owner, debounced, that something in a folder tree changed. It does not say what:
 * the owner re-reads everything, which also covers events the platform merged, and symbolic
 * links swapped underneath (ConfigMap volumes). chokidar watches the tree, following symbolic
 * links, and adds and drops the watches of folders as they come and go. When watching fails
 * (out of inotify watches, say), it polls instead. Like any watcher, it keeps the process alive
 * until closed.
 */
export class FolderWatcher {
  /**
   * Resolves once the whole tree is watched (or watching failed and polling took over): a
   * change made before may have been missed, one made after is not.
   */
  readonly ready: Promise<void>;
  readonly #options: FolderWatcherOptions;
  readonly #clock: Clock;
  #watcher: FSWatcher | undefined;
  #closing: Promise<void> | undefined;
  #poller: unknown;
  #timer: unknown;
  #firstEventAt: number | undefined;
  #closed = false;

  /**
   * `watchTree` is chokidar's `watch`, imported by the owner when it starts rather than with
   * this package (README, "Import cost").
   */
  constructor(options: FolderWatcherOptions, watchTree: typeof watch) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    if (options.pollMs > 0) this.#poll(options.pollMs);
    const watcher = watchTree(options.dir, {
      ignoreInitial: true,
      ignored: ignoredUnder(options.dir),
      followSymlinks: true,
      // An unreadable folder is left out of the listing too; it is no reason to stop watching.
      ignorePermissionErrors: true,
      // The debounce and the owner's re-read already make one change of a save's steps, and
      // the owner confirms a vanished file itself; chokidar's delays would only add latency.
      atomic: false,
      awaitWriteFinish: false,
    });
    this.#watcher = watcher;
    this.ready = new Promise((resolve) => {
      watcher.once("ready", resolve);
      watcher.once("error", () => resolve());
    });
    watcher.on("all", () => this.#poke());
    watcher.on("error", (err) => this.#fallBackToPolling(err));
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#clock.clearInterval(this.#poller);
    this.#clock.clearTimeout(this.#timer);
    this.#closing ??= this.#closeWatcher();
    return this.#closing;
  }

  async #closeWatcher(): Promise<void> {
    const watcher = this.#watcher;
    this.#watcher = undefined;
    await watcher?.close();
  }

  #poke(): void {
    if (this.#closed) return;
    const now = this.#clock.now();
    this.#firstEventAt ??= now;
    const deadline = this.#firstEventAt + this.#options.maxWaitMs;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#firstEventAt = undefined;
        this.#options.onChange();
      },
      Math.max(CHOKIDAR_CHANGE_THROTTLE_MS, Math.min(this.#options.debounceMs, deadline - now)),
    );
    unrefTimer(this.#timer);
  }

  /** Out of inotify watches, say: re-read on a timer instead. */
  #fallBackToPolling(err: unknown): void {
    if (this.#closed || this.#watcher === undefined) return;
    void this.#closeWatcher();
    const pollMs = this.#options.pollMs > 0 ? this.#options.pollMs : FALLBACK_POLL_MS;
    this.#options.logger.warn("cannot watch the manifests folder; polling it instead", {
      pollMs,
      error: String(err),
    });
    this.#poll(pollMs);
  }

  #poll(intervalMs: number): void {
    if (this.#poller !== undefined) return;
    this.#poller = this.#clock.setInterval(() => this.#options.onChange(), intervalMs);
  }
}

/**
 * Hidden names under `root` are not manifests and hidden folders are not read (editor
 * droppings, `.git`), so their events need no re-read. Names starting with `..` are watched: a
 * ConfigMap volume publishes a new version by creating a `..<timestamp>` folder and swapping
 * the `..data` link to it, and that is the only event its update makes.
 */
function ignoredUnder(root: string): (path: string) => boolean {
  const rootPath = resolve(root);
  return (path) => {
    const name = basename(path);
    return name.startsWith(".") && !name.startsWith("..") && resolve(path) !== rootPath;
  };
}
