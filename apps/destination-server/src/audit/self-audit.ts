import type { MetricsRegistry } from "@destination/core";
import { auditSourceOf, type Cluster } from "@destination/k8s-discovery";
import type { DestinationContext } from "../grpc/destination-context.js";
import type { ResolvedServerOptions } from "../server-options.js";
import { auditMetrics } from "./audit-metrics.js";
import { type AuditSchedule, scheduleAudits } from "./audit-schedule.js";
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
