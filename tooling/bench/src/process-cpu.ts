/**
 * The CPU time of a process to the nanosecond: each thread's run time from
 * `/proc/<pid>/task/<tid>/schedstat`, summed. `/proc/<pid>/stat` counts in 10 ms ticks, which
 * is coarse for a phase of a few tens of ms: a phase of 30 ms could read 20 or 40.
 */
import { readdirSync, readFileSync } from "node:fs";

export class ProcessCpu {
  readonly #pid: number;
  /**
   * Each thread's run time when last read, in ns. A thread that has exited keeps what it was
   * last read at, so the total never goes back; what it ran between that read and its exit is
   * not counted (node and Go keep their threads for the life of the process).
   */
  readonly #threadNs = new Map<string, number>();

  constructor(pid: number) {
    this.#pid = pid;
  }

  /**
   * CPU of every thread seen so far, in ms; undefined where the kernel keeps no schedstat (then
   * read `/proc/<pid>/stat` instead).
   */
  totalMs(): number | undefined {
    if (this.mainThreadMs() === undefined) return undefined;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${this.#pid}/task`);
    } catch {
      return undefined;
    }
    for (const tid of tids) {
      const ns = threadRunNs(this.#pid, tid);
      if (ns === null) return undefined;
      // undefined: the thread exited between the listing and the read.
      if (ns !== undefined) this.#threadNs.set(tid, ns);
    }
    let total = 0;
    for (const ns of this.#threadNs.values()) total += ns;
    return total / 1e6;
  }

  /**
   * CPU of the process's first thread (node's JavaScript thread), in ms; undefined where the
   * kernel keeps no schedstat, or the process is gone.
   */
  mainThreadMs(): number | undefined {
    const ns = threadRunNs(this.#pid, String(this.#pid));
    return ns === null || ns === undefined ? undefined : ns / 1e6;
  }
}

/** A thread's run time in ns; undefined when it is gone, null when schedstat is not kept. */
function threadRunNs(pid: number, tid: string): number | undefined | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  }
  const ns = Number(text.split(" ")[0]);
  return Number.isFinite(ns) ? ns : null;
}
