import { type FSWatcher, watch } from "node:fs";
import { type Clock, type Logger, systemClock, unrefTimer } from "@destination/core";

export interface FolderWatcherOptions {
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
 * Tells its owner, debounced, that something in a set of folders changed. It does not say what:
 * the owner re-reads everything, which also covers events the platform merged, and symbolic
 * links swapped underneath (ConfigMap volumes). Each folder gets its own non-recursive watch:
 * Node 20's recursive mode on Linux loses events (a file deleted after being replaced by a
 * rename goes unnoticed). When watching fails, it polls instead. Like any watcher, it keeps the
 * process alive until closed.
 */
export class FolderWatcher {
  readonly #options: FolderWatcherOptions;
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #clock: Clock;
  #poller: unknown;
  #timer: unknown;
  #firstEventAt: number | undefined;
  #closed = false;

  constructor(options: FolderWatcherOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    if (options.pollMs > 0) this.#poll(options.pollMs);
  }

  /**
   * Watches exactly these folders from now on. Returns true when a folder was added: files
   * created in it before its watch started are seen only by another re-read.
   */
  watch(folders: readonly string[]): boolean {
    if (this.#closed || this.#poller !== undefined) return false;
    const wanted = new Set(folders);
    for (const [folder, watcher] of this.#watchers) {
      if (wanted.has(folder)) continue;
      watcher.close();
      this.#watchers.delete(folder);
    }
    let added = false;
    for (const folder of wanted) {
      if (this.#watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, () => this.#poke());
        // A folder that goes away errors on some platforms; the next re-read drops it.
        watcher.on("error", () => {
          watcher.close();
          this.#watchers.delete(folder);
          this.#poke();
        });
        this.#watchers.set(folder, watcher);
        added = true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") continue; // gone already
        this.#fallBackToPolling(err);
        return false;
      }
    }
    return added;
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    this.#clock.clearInterval(this.#poller);
    this.#clock.clearTimeout(this.#timer);
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
      Math.max(0, Math.min(this.#options.debounceMs, deadline - now)),
    );
    unrefTimer(this.#timer);
  }

  /** Out of inotify watches, say: re-read on a timer instead. */
  #fallBackToPolling(err: unknown): void {
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
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
