import type { MetricsRegistry } from "@destination/core";

/** The self-audit's series (README "Self-audit"); dashboards and alerts use these names. */
export const AUDIT_METRIC_NAMES = {
  runs: "destination_audit_runs_total",
  duration: "destination_audit_duration_seconds",
  streamsChecked: "destination_audit_streams_checked",
  divergentStreams: "destination_audit_divergent_streams",
  divergentEndpoints: "destination_audit_divergent_endpoints_total",
  divergentProfiles: "destination_audit_divergent_profiles_total",
} as const;

/** How a run ended: nothing found, found and healed by a relist, found and not healed, failed. */
export type AuditRunResult = "clean" | "healed" | "unhealed" | "failed";

/** One endpoint a stream holds differently from the API server's answer. */
export type DivergenceKind = "missing" | "extra" | "changed";

export interface AuditMetrics {
  ran(result: AuditRunResult, seconds: number): void;
  checked(streams: number, divergentStreams: number): void;
  diverged(kind: DivergenceKind, endpoints: number): void;
  /** A GetProfile subscription held another profile than the fresh answer. */
  divergedProfile(flow: "service" | "endpoint"): void;
}

// A run lists every kind the Get path reads: seconds on a small cluster, minutes on a huge one.
const DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;

export function auditMetrics(metrics: MetricsRegistry): AuditMetrics {
  const runs = metrics.counter(
    AUDIT_METRIC_NAMES.runs,
    "Self-audit runs of the Get streams against fresh lists from the API server, by result",
    ["result"],
  );
  const duration = metrics.histogram(
    AUDIT_METRIC_NAMES.duration,
    "Seconds one self-audit run took, lists, comparison and any relist included",
    [],
    DURATION_BUCKETS,
  );
  const checked = metrics.gauge(
    AUDIT_METRIC_NAMES.streamsChecked,
    "Get and GetProfile streams the last self-audit run checked",
    [],
  );
  const divergent = metrics.gauge(
    AUDIT_METRIC_NAMES.divergentStreams,
    "Streams the last self-audit run found holding other answers than the API server implies (before healing)",
    [],
  );
  const endpoints = metrics.counter(
    AUDIT_METRIC_NAMES.divergentEndpoints,
    "Endpoints found held differently from the API server's answer, by kind: missing, extra, changed",
    ["kind"],
  );
  const profiles = metrics.counter(
    AUDIT_METRIC_NAMES.divergentProfiles,
    "GetProfile subscriptions found holding another profile than the API server implies, by flow: service, endpoint",
    ["flow"],
  );
  for (const flow of ["service", "endpoint"] as const) profiles.inc({ flow }, 0);
  // Every series exists from the start at 0, so a rate or an alert needs no absent() guard.
  for (const result of ["clean", "healed", "unhealed", "failed"] as const) runs.inc({ result }, 0);
  for (const kind of ["missing", "extra", "changed"] as const) endpoints.inc({ kind }, 0);
  return {
    ran(result, seconds) {
      runs.inc({ result });
      duration.observe({}, seconds);
    },
    checked(streams, divergentStreams) {
      checked.set({}, streams);
      divergent.set({}, divergentStreams);
    },
    diverged(kind, count) {
      if (count > 0) endpoints.inc({ kind }, count);
    },
    divergedProfile(flow) {
      profiles.inc({ flow });
    },
  };
}
