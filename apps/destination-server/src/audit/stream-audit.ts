import { type Clock, nodeZoneOf } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import type { AuditSource, Cluster, MemoryCluster, ResourceKind } from "@destination/k8s-discovery";
import { WorkloadWatcher } from "@destination/pod-watcher";
import { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import { EndpointTranslation, type EndpointTranslatorConfig } from "@destination/translators";
import type { ServerLogger } from "../logging/server-logger.js";
import type { AuditMetrics, AuditRunResult } from "./audit-metrics.js";
import { type FreshState, GET_KINDS, listFreshState } from "./fresh-cluster.js";
import {
  compareViews,
  describeDivergence,
  type GetDivergence,
  type GetSide,
  heldView,
  isDivergent,
} from "./get-comparison.js";
import type {
  GetSubscription,
  GetSubscriptions,
  ProfileSubscription,
  ProfileSubscriptions,
} from "./held-subscriptions.js";
import { type ObjectDifference, objectDifferences } from "./object-differences.js";
import {
  compareProfile,
  describeProfileDivergence,
  type ProfileDivergence,
  type ProfileSide,
} from "./profile-comparison.js";
import { TimeSlices } from "./time-slices.js";

/** The serving watchers whose answers the streams were sent. */
export interface LiveWatchers {
  readonly endpoints: EndpointsWatcher;
  readonly profiles: ProfileWatcher;
  readonly opaquePorts: OpaquePortsWatcher;
  readonly workloads: WorkloadWatcher;
}

export interface StreamAuditOptions {
  readonly cluster: Cluster;
  readonly source: AuditSource;
  readonly live: LiveWatchers;
  readonly getSubscriptions: GetSubscriptions;
  readonly profileSubscriptions: ProfileSubscriptions;
  readonly translatorConfig: EndpointTranslatorConfig;
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  readonly defaultOpaquePorts: ReadonlySet<number>;
  readonly metrics: AuditMetrics;
  readonly logger: ServerLogger;
  readonly clock: Clock;
  /**
   * How long a divergence is given to go away on its own before it counts (it is then compared
   * against new lists): a fresh list can be a few events ahead of the caches on a busy cluster,
   * and those events are on their way. 0: counted at once.
   */
  readonly settleMs: number;
  /**
   * The longest the run works before the event loop gets a turn (10 ms by default), so Get
   * streams are served while a run lasts.
   */
  readonly sliceMs?: number;
}

/** What one run found. */
export interface StreamAuditReport {
  readonly result: AuditRunResult;
  /** Streams checked, Get and GetProfile. */
  readonly streams: number;
  /** Get subscriptions found divergent (after settling, before healing). */
  readonly divergent: readonly GetDivergence[];
  /** GetProfile subscriptions found divergent (after settling, before healing). */
  readonly divergentProfiles: readonly ProfileDivergence[];
  /** Those still divergent after the relist: bugs. */
  readonly unhealed: readonly GetDivergence[];
  readonly unhealedProfiles: readonly ProfileDivergence[];
  /** Kinds relisted to heal. */
  readonly relisted: readonly ResourceKind[];
}

/** Objects named in one bug report at most. */
const REPORTED_OBJECTS = 50;

/** The watchers of a fresh cluster, built before its lists are loaded. */
interface FreshWatchers {
  readonly endpoints: EndpointsWatcher;
  readonly profiles: ProfileWatcher;
  readonly opaquePorts: OpaquePortsWatcher;
  readonly workloads: WorkloadWatcher;
}

interface Fresh {
  readonly state: FreshState<FreshWatchers>;
  readonly get: GetSide;
  readonly profile: ProfileSide;
  stop(): void;
}

interface Found {
  readonly get: GetDivergence[];
  readonly profiles: ProfileDivergence[];
}

const nothing = (found: Found) => found.get.length + found.profiles.length === 0;

/**
 * The self-audit (README "Self-audit"): lists the kinds the answers depend on from the API
 * server, one kind at a time, into a throwaway in-memory cluster; runs second watchers (endpoints,
 * workloads, profiles, opaque ports) and the same translators on it; and compares what a proxy
 * holds with what it would hold from the fresh ones: per Get subscription (service port, filter
 * key, zone) the endpoints its witness stream was sent (the live watcher's current set when it
 * has none), per GetProfile subscription the profile. The rules are the watchers' and
 * translators' own code on both sides, so the audit cannot disagree with them: it finds caches
 * that missed events (and watcher state that went wrong). A divergence is logged, counted and healed by relisting the kinds whose objects differ;
 * one that survives the relist is logged as a bug with the objects' names and versions.
 */
export class StreamAudit {
  readonly #options: StreamAuditOptions;
  #stopped = false;

  constructor(options: StreamAuditOptions) {
    this.#options = options;
  }

  /** Ends a run in progress at its next step. */
  stop(): void {
    this.#stopped = true;
  }

  async run(): Promise<StreamAuditReport> {
    const { metrics, logger } = this.#options;
    const startedAt = this.#options.clock.now();
    const empty = { divergent: [], divergentProfiles: [], unhealed: [], unhealedProfiles: [] };
    const finish = (report: StreamAuditReport): StreamAuditReport => {
      metrics.ran(report.result, (this.#options.clock.now() - startedAt) / 1000);
      return report;
    };
    try {
      const gets = this.#options.getSubscriptions.list();
      const profiles = this.#options.profileSubscriptions.list();
      const streams = [...gets, ...profiles].reduce((n, s) => n + s.streams, 0);
      if (streams === 0) {
        // Nothing to hold wrong: no list is made.
        metrics.checked(0, 0);
        return finish({ result: "clean", streams: 0, ...empty, relisted: [] });
      }
      const kinds = [
        ...GET_KINDS,
        ...(profiles.length > 0 ? ["ServiceProfile" as const] : []),
      ].filter((k) => this.#options.cluster.servedKinds.has(k));
      let fresh = await this.#fresh(kinds);
      let found: Found;
      let differences: ObjectDifference[];
      try {
        found = await this.#compare(gets, profiles, fresh);
        if (!nothing(found) && this.#options.settleMs > 0) {
          // Settle, then compare against new lists: a divergence made of events in flight is
          // gone, and one that a busy Service keeps showing for other reasons must show twice.
          await this.#sleep(this.#options.settleMs);
          fresh.stop();
          fresh = await this.#fresh(kinds);
          found = await this.#recheck(found, fresh);
        }
        differences = objectDifferences(this.#options.cluster, fresh.state.objects);
      } finally {
        fresh.stop();
      }
      const divergentStreams = [...found.get, ...found.profiles].reduce(
        (n, d) => n + d.subscription.streams,
        0,
      );
      metrics.checked(streams, divergentStreams);
      for (const d of found.get) {
        metrics.diverged("missing", d.missing.length);
        metrics.diverged("extra", d.extra.length);
        metrics.diverged("changed", d.changed.length);
      }
      for (const d of found.profiles) metrics.divergedProfile(d.subscription.flow);
      const report = { divergent: found.get, divergentProfiles: found.profiles };
      if (nothing(found)) {
        logger.debug("self-audit: every stream holds what the API server implies", { streams });
        return finish({ result: "clean", streams, ...empty, relisted: [] });
      }

      const relisted = [...new Set(differences.map((d) => d.kind))];
      for (const d of found.get) {
        logger.warn(
          "self-audit: a Get stream holds other endpoints than the API server implies; relisting",
          { ...describeDivergence(d), relisting: relisted },
        );
      }
      for (const d of found.profiles) {
        logger.warn(
          "self-audit: a GetProfile stream holds another profile than the API server implies; relisting",
          { ...describeProfileDivergence(d), relisting: relisted },
        );
      }
      if (this.#stopped) {
        return finish({
          result: "failed",
          streams,
          ...report,
          unhealed: [],
          unhealedProfiles: [],
          relisted,
        });
      }
      await this.#options.source.relist(relisted);

      // Checked again against new lists: what the relisted caches serve now.
      const again = await this.#fresh(kinds);
      let unhealed: Found;
      try {
        unhealed = await this.#recheck(found, again);
      } finally {
        again.stop();
      }
      const bug = {
        relisted,
        // What differed before the relist.
        differedBeforeRelist: differences.slice(0, REPORTED_OBJECTS),
      };
      for (const d of unhealed.get) {
        logger.error(
          "self-audit: a Get stream still diverges from the API server after a relist; this is a bug, please report it with this line",
          {
            ...describeDivergence(d),
            ...bug,
            objects: serviceObjects(again.state, d.subscription.service),
          },
        );
      }
      for (const d of unhealed.profiles) {
        const s = d.subscription;
        logger.error(
          "self-audit: a GetProfile stream still diverges from the API server after a relist; this is a bug, please report it with this line",
          {
            ...describeProfileDivergence(d),
            ...bug,
            ...(s.flow === "service" ? { objects: serviceObjects(again.state, s.service) } : {}),
          },
        );
      }
      if (nothing(unhealed)) {
        logger.info("self-audit: the divergent streams were healed by the relist", {
          streams: divergentStreams,
          relisted,
        });
      }
      return finish({
        result: nothing(unhealed) ? "healed" : "unhealed",
        streams,
        ...report,
        unhealed: unhealed.get,
        unhealedProfiles: unhealed.profiles,
        relisted,
      });
    } catch (err) {
      logger.warn("self-audit run failed; the next one runs as scheduled", { error: err });
      return finish({ result: "failed", streams: 0, ...empty, relisted: [] });
    }
  }

  async #compare(
    gets: readonly GetSubscription[],
    profiles: readonly ProfileSubscription[],
    fresh: Fresh,
  ): Promise<Found> {
    const live = this.#live();
    const slices = this.#slices();
    const get: GetDivergence[] = [];
    for (const s of gets) {
      await slices.pause();
      // A stream that ended while the run paused holds nothing any more.
      if (!this.#options.getSubscriptions.has(s)) continue;
      const witness = this.#options.getSubscriptions.witnessOf(s);
      const expected = heldView(fresh.get, s);
      const d =
        witness === undefined
          ? compareViews(s, heldView(live.get, s), expected, "watcher")
          : compareViews(s, witness, expected, "stream");
      if (isDivergent(d)) get.push(d);
    }
    const found: ProfileDivergence[] = [];
    // One at a time: an endpoint-profile subscribe may read an owner from the API server.
    for (const s of profiles) {
      await slices.pause();
      if (!this.#options.profileSubscriptions.has(s)) continue;
      const d = await compareProfile(s, live.profile, fresh.profile);
      if (d !== undefined) found.push(d);
    }
    return { get, profiles: found };
  }

  /** The divergences of `previous` still held by some stream and still divergent against `fresh`. */
  #recheck(previous: Found, fresh: Fresh): Promise<Found> {
    // #compare skips what no stream holds any more.
    return this.#compare(
      previous.get.map((d) => d.subscription),
      previous.profiles.map((d) => d.subscription),
      fresh,
    );
  }

  /** The serving side: the live watchers, translated as a new stream would be. */
  #live(): { get: GetSide; profile: ProfileSide } {
    const translation = new EndpointTranslation(this.#options.translatorConfig);
    const { live, translatorConfig } = this.#options;
    return {
      get: { watcher: live.endpoints, translationFor: (s) => translation.forZone(s.zone) },
      profile: { ...live, translatorConfig },
    };
  }

  /** Fresh lists, and second watchers on them (the zones from their Nodes). */
  async #fresh(kinds: readonly ResourceKind[]): Promise<Fresh> {
    const state = await listFreshState(
      this.#options.source,
      kinds,
      (cluster) => this.#watchersOn(cluster),
      () => this.#stopped,
      this.#slices(),
    );
    const translation = new EndpointTranslation(this.#options.translatorConfig);
    const zoneOf = (nodeName: string) => {
      const node = nodeName === "" ? undefined : state.cluster.nodes.get("", nodeName);
      return node === undefined ? "" : nodeZoneOf(node);
    };
    const w = state.prepared;
    let stopped = false;
    return {
      state,
      get: {
        watcher: w.endpoints,
        translationFor: (s) => translation.forZone(zoneOf(s.key.nodeName)),
      },
      profile: { ...w, translatorConfig: this.#options.translatorConfig },
      stop: () => {
        if (stopped) return;
        stopped = true;
        w.endpoints.stop();
        w.profiles.stop();
        w.opaquePorts.stop();
        w.workloads.stop();
      },
    };
  }

  /** The server's watchers with the server's options, without metrics or logs. */
  #watchersOn(cluster: MemoryCluster): FreshWatchers {
    const { enableEndpointSlices, enableIPv6, defaultOpaquePorts } = this.#options;
    return {
      endpoints: new EndpointsWatcher(cluster, { enableEndpointSlices, enableIPv6 }),
      profiles: new ProfileWatcher(cluster, {}),
      opaquePorts: new OpaquePortsWatcher(cluster, { defaultOpaquePorts }),
      workloads: new WorkloadWatcher(cluster, { defaultOpaquePorts, enableEndpointSlices }),
    };
  }

  #slices(): TimeSlices {
    return new TimeSlices(this.#options.sliceMs ?? 10);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.#options.clock.setTimeout(resolve, ms));
  }
}

/** The Service, its slices or Endpoints and their pods as listed: names and resourceVersions. */
function serviceObjects(
  state: FreshState<unknown>,
  service: { namespace: string; name: string },
): string[] {
  const { namespace, name } = service;
  const cluster = state.cluster;
  const named: string[] = [];
  const add = (
    kind: string,
    obj: { metadata: { namespace?: string; name: string; resourceVersion?: string } },
  ) =>
    named.push(
      `${kind} ${obj.metadata.namespace ?? ""}/${obj.metadata.name}@${obj.metadata.resourceVersion ?? ""}`,
    );
  const svc = cluster.services.get(namespace, name);
  if (svc !== undefined) add("Service", svc);
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
