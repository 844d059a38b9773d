import type { BoundCounter, MetricLabels } from "@destination/core";
import { labelKey } from "@destination/core";
import type { Counter } from "prom-client";

/**
 * One counter series whose increments are added up here and handed to prom-client when the
 * counter is read (from its `collect`): prom-client hashes and checks the label set on every
 * `inc`, which cost more than the rest of handling a watch event or sending a message
 * (BENCHMARKS.md, "Idle CPU and hot counters"). The value stays prom-client's; this only holds
 * what it has not been told yet, and a series nothing was added to is not created by a flush.
 */
export class BatchedSeries implements BoundCounter {
  readonly key: string;
  #pending = 0;

  constructor(readonly labels: MetricLabels) {
    this.key = labelKey(labels);
  }

  inc(by = 1): void {
    this.#pending += by;
  }

  flushInto(counter: Counter<string>): void {
    if (this.#pending === 0) return;
    counter.inc(this.labels, this.#pending);
    this.#pending = 0;
  }

  /** The series was removed: what it had not handed over goes with it (later ones count anew). */
  drop(): void {
    this.#pending = 0;
  }
}
