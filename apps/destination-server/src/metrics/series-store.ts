import { format, inspect } from "node:util";
import type { MetricLabels } from "@destination/core";

/** One labelled series: the label object it was last set with (a counter keeps its first). */
export interface Series {
  labels: MetricLabels;
  value: number;
}

/**
 * The series of one gauge or counter, kept here and written into the prom-client metric only
 * when it is read. prom-client hashes and checks the label object on every change; the watchers
 * pass the same frozen label object for a group each time, so here a frozen object is checked
 * and hashed once. Keys, checks, errors and series order are prom-client's own, so what is
 * scraped does not change.
 */
export class SeriesStore {
  readonly #labelNames: readonly string[];
  readonly #sortedLabelNames: readonly string[];
  /** In the order prom-client's store would hold them: first set, until removed. */
  readonly #series = new Map<string, Series>();

  constructor(labelNames: readonly string[]) {
    this.#labelNames = labelNames;
    this.#sortedLabelNames = [...labelNames].sort();
  }

  /** A gauge's `set`. */
  set(labels: MetricLabels, value: number): void {
    if (typeof value !== "number") {
      throw new TypeError(`Value is not a valid number: ${format(value)}`);
    }
    this.#series.set(this.#key(labels), { labels, value });
  }

  /** A gauge's `inc` and `dec`. */
  addDelta(labels: MetricLabels, delta: number): void {
    if (typeof delta !== "number") {
      throw new TypeError(`Delta is not a valid number: ${format(delta)}`);
    }
    this.#add(this.#key(labels), labels, delta);
  }

  /** A counter's `inc`. */
  increment(labels: MetricLabels, by: number | null | undefined): void {
    const key = this.#key(labels);
    const value = by ?? 1;
    if (value && !Number.isFinite(value)) {
      throw new TypeError(`Value is not a valid number: ${format(value)}`);
    }
    if (value < 0) throw new Error("It is not possible to decrease a counter");
    this.#add(key, labels, value);
  }

  remove(labels: MetricLabels): void {
    this.#series.delete(this.#key(labels));
  }

  values(): IterableIterator<Series> {
    return this.#series.values();
  }

  #add(key: string, labels: MetricLabels, delta: number): void {
    const series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, { labels, value: delta });
    else series.value += delta;
  }

  /** prom-client's key of a label object, after its check that every label is declared. */
  #key(labels: MetricLabels): string {
    const known = frozenKeys.get(labels);
    if (known !== undefined && known.checkedFor === this.#labelNames) return known.key;
    for (const label in labels) {
      if (!this.#labelNames.includes(label)) {
        throw new Error(
          `Added label "${label}" is not included in initial labelset: ${inspect(this.#labelNames)}`,
        );
      }
    }
    if (known !== undefined) {
      known.checkedFor = this.#labelNames;
      return known.key;
    }
    const key = labelKey(labels, this.#sortedLabelNames);
    // Only a frozen object is sure to hold the same labels next time.
    if (Object.isFrozen(labels)) frozenKeys.set(labels, { key, checkedFor: this.#labelNames });
    return key;
  }
}

/**
 * Keys of frozen label objects, shared by every store: a group's one label object is passed to
 * several metrics of one label set. `checkedFor` is the label-name list it was last checked
 * against; the metrics of one family share that list.
 */
const frozenKeys = new WeakMap<MetricLabels, { key: string; checkedFor: readonly string[] }>();

/**
 * prom-client's key: `name:value,` in sorted name order, undefined values left out. Built from
 * the declared names once every label is known to be declared: the same key, without sorting
 * the object's own names.
 */
function labelKey(labels: MetricLabels, sortedNames: readonly string[]): string {
  let key = "";
  for (const name of sortedNames) {
    const value = labels[name];
    if (value !== undefined) key += `${name}:${value},`;
  }
  return key;
}
