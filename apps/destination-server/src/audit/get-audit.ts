import { type Clock, nodeZoneOf } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import type { AuditSource, Cluster, ResourceKind } from "@destination/k8s-discovery";
import { EndpointTranslation, type EndpointTranslatorConfig } from "@destination/translators";
import type { ServerLogger } from "../logging/server-logger.js";
import type { AuditMetrics, AuditRunResult } from "./audit-metrics.js";
import { type FreshState, GET_KINDS, listFreshState } from "./fresh-cluster.js";
import {
  compareGet,
  compareViews,
  describeDivergence,
  type GetDivergence,
  type GetSide,
  heldView,
  isDivergent,
} from "./get-comparison.js";
import type { GetSubscription, GetSubscriptions } from "./get-subscriptions.js";
import { type ObjectDifference, objectDifferences } from "./object-differences.js";

export interface GetAuditOptions {
  readonly cluster: Cluster;
  readonly source: AuditSource;
  /** The serving endpoints watcher, whose sets the streams were sent. */
  readonly endpoints: EndpointsWatcher;
  readonly subscriptions: GetSubscriptions;
  readonly translatorConfig: EndpointTranslatorConfig;
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  readonly metrics: AuditMetrics;
  readonly logger: ServerLogger;
  readonly clock: Clock;
  /**
   * How long a divergence is given to go away on its own before it counts: a fresh list can be
   * a few events ahead of the caches on a busy cluster, and those events are on their way.
   */
  readonly settleMs: number;
}

/** What one run found. */
export interface GetAuditReport {
  readonly result: AuditRunResult;
  /** Get streams checked. */
  readonly streams: number;
  /** Subscriptions found divergent (after settling, before healing). */
  readonly divergent: readonly GetDivergence[];
  /** Those still divergent after the relist: bugs. */
  readonly unhealed: readonly GetDivergence[];
  /** Kinds relisted to heal. */
  readonly relisted: readonly ResourceKind[];
}

/** Objects named in one bug report at most. */
const REPORTED_OBJECTS = 50;

/**
 * The self-audit of `Get` (README "Self-audit"): lists the kinds a Get answer depends on from
 * the API server, one kind at a time, into a throwaway in-memory cluster; runs a second
 * endpoints watcher and the same translators on it; and compares, per subscribed service port,
 * filter key and zone, what a proxy holds from the live watcher with what it would hold from
 * the fresh one. The rules are the watchers' and translators' own code on both sides, so the
 * audit cannot disagree with them: it finds caches that missed events (and watcher state that
 * went wrong). A divergence is logged, counted and healed by relisting the kinds whose objects
 * differ; one that survives the relist is logged as a bug with the objects' names and versions.
 */
export class GetAudit {
  readonly #options: GetAuditOptions;
  #stopped = false;

  constructor(options: GetAuditOptions) {
    this.#options = options;
  }

  /** Ends a run in progress at its next step. */
  stop(): void {
    this.#stopped = true;
  }

  async run(): Promise<GetAuditReport> {
    const { subscriptions, metrics, logger } = this.#options;
    const startedAt = this.#options.clock.now();
    const finish = (report: GetAuditReport): GetAuditReport => {
      metrics.ran(report.result, (this.#options.clock.now() - startedAt) / 1000);
      return report;
    };
    try {
      const held = subscriptions.list();
      const streams = held.reduce((n, s) => n + s.streams, 0);
      if (held.length === 0) {
        // Nothing to hold wrong: no list is made.
        metrics.checked(0, 0);
        return finish({ result: "clean", streams: 0, divergent: [], unhealed: [], relisted: [] });
      }
      const kinds = GET_KINDS.filter((k) => this.#options.cluster.servedKinds.has(k));
      const fresh = await this.#fresh(kinds);
      let divergent: GetDivergence[];
      let differences: ObjectDifference[];
      try {
        divergent = compareGet(held, this.#live(), fresh.side);
        if (divergent.length > 0 && this.#options.settleMs > 0) {
          await this.#sleep(this.#options.settleMs);
          divergent = this.#recheck(divergent, fresh.side);
        }
        differences = objectDifferences(this.#options.cluster, fresh.state.objects);
      } finally {
        fresh.side.watcher.stop();
      }
      const divergentStreams = divergent.reduce((n, d) => n + d.subscription.streams, 0);
      metrics.checked(streams, divergentStreams);
      for (const d of divergent) {
        metrics.diverged("missing", d.missing.length);
        metrics.diverged("extra", d.extra.length);
        metrics.diverged("changed", d.changed.length);
      }
      if (divergent.length === 0) {
        logger.debug("self-audit: every Get stream holds what the API server implies", {
          streams,
        });
        return finish({ result: "clean", streams, divergent, unhealed: [], relisted: [] });
      }

      const relisted = [...new Set(differences.map((d) => d.kind))];
      for (const d of divergent) {
        logger.warn(
          "self-audit: a Get stream holds other endpoints than the API server implies; relisting",
          {
            ...describeDivergence(d),
            relisting: relisted,
          },
        );
      }
      if (this.#stopped)
        return finish({ result: "failed", streams, divergent, unhealed: [], relisted });
      await this.#options.source.relist(relisted);

      // Checked again against a new list: what the relisted caches serve now.
      const again = await this.#fresh(kinds);
      let unhealed: GetDivergence[];
      try {
        unhealed = this.#recheck(divergent, again.side);
      } finally {
        again.side.watcher.stop();
      }
      for (const d of unhealed) {
        logger.error(
          "self-audit: a Get stream still diverges from the API server after a relist; this is a bug, please report it with this line",
          {
            ...describeDivergence(d),
            relisted,
            // What differed before the relist, and the objects behind the Service now.
            differedBeforeRelist: differences.slice(0, REPORTED_OBJECTS),
            objects: serviceObjects(again.state, d.subscription),
          },
        );
      }
      if (unhealed.length === 0) {
        logger.info("self-audit: the divergent Get streams were healed by the relist", {
          streams: divergentStreams,
          relisted,
        });
      }
      return finish({
        result: unhealed.length === 0 ? "healed" : "unhealed",
        streams,
        divergent,
        unhealed,
        relisted,
      });
    } catch (err) {
      logger.warn("self-audit run failed; the next one runs as scheduled", { error: err });
      return finish({ result: "failed", streams: 0, divergent: [], unhealed: [], relisted: [] });
    }
  }

  /** The serving side: the live watcher, translated as a fresh stream in that zone would be. */
  #live(): GetSide {
    const translation = new EndpointTranslation(this.#options.translatorConfig);
    return {
      watcher: this.#options.endpoints,
      translationFor: (s) => translation.forZone(s.zone),
    };
  }

  /** Fresh lists, and a second watcher on them with the zones their Nodes give. */
  async #fresh(
    kinds: readonly ResourceKind[],
  ): Promise<{ state: FreshState<EndpointsWatcher>; side: GetSide }> {
    const state = await listFreshState(
      this.#options.source,
      kinds,
      (cluster) =>
        new EndpointsWatcher(cluster, {
          enableEndpointSlices: this.#options.enableEndpointSlices,
          enableIPv6: this.#options.enableIPv6,
        }),
      () => this.#stopped,
    );
    const translation = new EndpointTranslation(this.#options.translatorConfig);
    const zoneOf = (nodeName: string) => {
      const node = nodeName === "" ? undefined : state.cluster.nodes.get("", nodeName);
      return node === undefined ? "" : nodeZoneOf(node);
    };
    return {
      state,
      side: {
        watcher: state.prepared,
        translationFor: (s) => translation.forZone(zoneOf(s.key.nodeName)),
      },
    };
  }

  /** The divergences of `previous` still held by some stream and still divergent against `fresh`. */
  #recheck(previous: readonly GetDivergence[], fresh: GetSide): GetDivergence[] {
    const live = this.#live();
    return previous
      .map((d) => d.subscription)
      .filter((s) => this.#options.subscriptions.has(s))
      .map((s) => compareViews(s, heldView(live, s), heldView(fresh, s)))
      .filter(isDivergent);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.#options.clock.setTimeout(resolve, ms));
  }
}

/** The Service, its slices or Endpoints and their pods as listed: names and resourceVersions. */
function serviceObjects(state: FreshState<unknown>, s: GetSubscription): string[] {
  const { namespace, name } = s.service;
  const cluster = state.cluster;
  const named: string[] = [];
  const add = (
    kind: string,
    obj: { metadata: { namespace?: string; name: string; resourceVersion?: string } },
  ) =>
    named.push(
      `${kind} ${obj.metadata.namespace ?? ""}/${obj.metadata.name}@${obj.metadata.resourceVersion ?? ""}`,
    );
  const service = cluster.services.get(namespace, name);
  if (service !== undefined) add("Service", service);
  const endpoints = cluster.endpoints.get(namespace, name);
  if (endpoints !== undefined) add("Endpoints", endpoints);
  const pods = new Set<string>();
  for (const slice of cluster.indexes.endpointSlicesOfService(namespace, name)) {
    add("EndpointSlice", slice);
    for (const e of slice.endpoints ?? []) {
      if (e.targetRef?.kind === "Pod" && e.targetRef.name) pods.add(e.targetRef.name);
    }
  }
  for (const subset of endpoints?.subsets ?? []) {
    for (const a of [...(subset.addresses ?? []), ...(subset.notReadyAddresses ?? [])]) {
      if (a.targetRef?.kind === "Pod" && a.targetRef.name) pods.add(a.targetRef.name);
    }
  }
  for (const podName of [...pods].sort()) {
    const pod = cluster.pods.get(namespace, podName);
    if (pod !== undefined) add("Pod", pod);
  }
  return named.slice(0, REPORTED_OBJECTS);
}
