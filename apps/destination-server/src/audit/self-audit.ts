import type { Clock, MetricsRegistry } from "@destination/core";
import { auditSourceOf, type Cluster } from "@destination/k8s-discovery";
import type { DestinationContext } from "../grpc/destination-context.js";
import type { ResolvedServerOptions } from "../server-options.js";
import { auditMetrics } from "./audit-metrics.js";
import { StreamAudit } from "./stream-audit.js";

/** The settle time is a tenth of the interval, at most this (README "Self-audit"). */
const MAX_SETTLE_MS = 2_000;

/**
 * Starts the self-audit of `Get` and `GetProfile` when it is on (`-audit-interval` above 0) and the cluster reads
 * an API server; returns its schedule, or undefined (logged) when it does not run.
 */
export function startSelfAudit(
  cluster: Cluster,
  ctx: DestinationContext,
  options: ResolvedServerOptions,
  metrics: MetricsRegistry,
): AuditSchedule | undefined {
  const { logger } = options;
  if (options.auditIntervalMs <= 0) {
    logger.info("self-audit off (-audit-interval=0)");
    return undefined;
  }
  const source = auditSourceOf(cluster);
  if (source === undefined) {
    // The manifests and memory backends have no API server to be stale against.
    logger.info("self-audit off: this cluster source has no API server to audit against");
    return undefined;
  }
  const audit = new StreamAudit({
    cluster,
    source,
    live: {
      endpoints: ctx.endpoints,
      profiles: ctx.profiles,
      opaquePorts: ctx.opaquePorts,
      workloads: ctx.workloads,
    },
    getSubscriptions: ctx.getSubscriptions,
    profileSubscriptions: ctx.profileSubscriptions,
    translatorConfig: ctx.translatorConfig,
    enableEndpointSlices: options.enableEndpointSlices,
    enableIPv6: options.enableIpv6,
    defaultOpaquePorts: options.defaultOpaquePorts,
    metrics: auditMetrics(metrics),
    logger: logger.child({ component: "audit" }),
    clock: options.clock,
    settleMs: Math.min(MAX_SETTLE_MS, options.auditIntervalMs / 10),
  });
  const schedule = scheduleAudits(() => audit.run(), options.auditIntervalMs, options.clock);
  logger.info("self-audit on", { intervalMs: options.auditIntervalMs });
  return {
    async stop() {
      audit.stop();
      await schedule.stop();
    },
  };
}

/** A running schedule; `stop()` clears the timer and waits for a run in progress. */
export interface AuditSchedule {
  stop(): Promise<void>;
}

/** ±10 %: replicas started together drift apart rather than list the API server in step. */
const JITTER = 0.1;

/** The delay before the next run: `intervalMs` jittered by ±10 %. */
export function jitteredDelay(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * Runs `run` every `intervalMs` (jittered), the next delay counted from the end of the last
 * run, so runs never overlap however long one takes.
 */
export function scheduleAudits(
  run: () => Promise<unknown>,
  intervalMs: number,
  clock: Clock,
  random: () => number = Math.random,
): AuditSchedule {
  let stopped = false;
  let timer: unknown;
  let running: Promise<unknown> | undefined;
  const next = () => {
    if (stopped) return;
    timer = clock.setTimeout(
      () => {
        running = run().finally(() => {
          running = undefined;
          next();
        });
      },
      jitteredDelay(intervalMs, random),
    );
  };
  next();
  return {
    async stop() {
      stopped = true;
      clock.clearTimeout(timer);
      await running;
    },
  };
}
