import type { MetricsRegistry } from "@destination/core";

/** Upstream's work-queue metric names (client-go's, under the `workqueue` subsystem). */
export const QUEUE_METRIC_NAMES = {
  depth: "workqueue_depth",
  adds: "workqueue_adds_total",
  queueDuration: "workqueue_queue_duration_seconds",
  workDuration: "workqueue_work_duration_seconds",
  unfinishedWork: "workqueue_unfinished_work_seconds",
  longestRunningProcessor: "workqueue_longest_running_processor_seconds",
  retries: "workqueue_retries_total",
  drops: "workqueue_drops_total",
} as const;

/** Upstream's buckets of both duration histograms: 10 ns, then ×10, ten buckets (to 10 s). */
export const QUEUE_DURATION_BUCKETS: readonly number[] = Array.from(
  { length: 10 },
  (_, i) => 10e-9 * 10 ** i,
);

/** What the work queue reports; the no-op one when `-export-queue-metrics=false`. */
export interface QueueMetrics {
  depth(value: number): void;
  added(): void;
  /** Seconds an item waited in the queue before a worker took it. */
  waited(seconds: number): void;
  /** Seconds a worker spent on an item. */
  worked(seconds: number): void;
  retried(): void;
  dropped(): void;
  /** Read at scrape time: seconds of work in progress, and of the longest running item. */
  inProgress(collect: () => { unfinishedSeconds: number; longestSeconds: number }): void;
}

export const noopQueueMetrics: QueueMetrics = {
  depth() {},
  added() {},
  waited() {},
  worked() {},
  retried() {},
  dropped() {},
  inProgress() {},
};

/** The queue's metrics, labelled `name=<queue>`, in the registry the server exposes. */
export function queueMetrics(registry: MetricsRegistry, queueName: string): QueueMetrics {
  const labels = { name: queueName };
  const n = QUEUE_METRIC_NAMES;
  const depth = registry.gauge(n.depth, "Current depth of workqueue", ["name"]);
  const adds = registry.counter(n.adds, "Total number of adds handled by workqueue", ["name"]);
  const waited = registry.histogram(
    n.queueDuration,
    "How long in seconds an item stays in workqueue before being requested.",
    ["name"],
    QUEUE_DURATION_BUCKETS,
  );
  const worked = registry.histogram(
    n.workDuration,
    "How long in seconds processing an item from workqueue takes.",
    ["name"],
    QUEUE_DURATION_BUCKETS,
  );
  const retries = registry.counter(n.retries, "Total number of retries handled by workqueue", [
    "name",
  ]);
  const drops = registry.counter(
    n.drops,
    "Total number of dropped items from the queue due to exceeding retry threshold",
    ["name"],
  );
  depth.set(labels, 0);
  adds.inc(labels, 0);
  retries.inc(labels, 0);
  drops.inc(labels, 0);
  return {
    depth: (value) => depth.set(labels, value),
    added: () => adds.inc(labels),
    waited: (seconds) => waited.observe(labels, seconds),
    worked: (seconds) => worked.observe(labels, seconds),
    retried: () => retries.inc(labels),
    dropped: () => drops.inc(labels),
    inProgress: (collect) => {
      registry.collectedGauge(
        n.unfinishedWork,
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
        ["name"],
        () => [{ labels, value: collect().unfinishedSeconds }],
      );
      registry.collectedGauge(
        n.longestRunningProcessor,
        "How many seconds has the longest running processor for workqueue been running.",
        ["name"],
        () => [{ labels, value: collect().longestSeconds }],
      );
    },
  };
}
