import {
  type ExternalWorkload,
  type LingerTimers,
  type Logger,
  type MetricsRegistry,
  noopMetrics,
  type Owner,
  type PartialObjectMetadata,
  type Pod,
  PublisherRegistry,
  SerialQueue,
  type Server,
  silentLogger,
  type WorkloadListener,
} from "@destination/core";
import type { CacheEventHandler, Cluster } from "@destination/k8s-discovery";
import { cachedPodOwner, fetchPodOwner } from "./cached-pod-owner.js";
import { podByHostname } from "./hostname-lookup.js";
import { publishersReachedByPod } from "./pod-event-routing.js";
import { canonical, podIsRunning, samePod } from "./pod-facts.js";
import { WorkloadLookupError } from "./workload-lookup-error.js";
import { WorkloadMetrics } from "./workload-metrics.js";
import { type PublisherContext, publisherKey, WorkloadPublisher } from "./workload-publisher.js";
import { type ResolvedWorkload, resolveWorkloadByIp } from "./workload-resolution.js";

/**
 * What a GetProfile stream asks the workload watcher about: an `ip:port`, or a StatefulSet-style
 * instance `<hostname>.<service>.<namespace>.svc…` whose IP is looked up in the service's
 * EndpointSlices (or Endpoints), in which case `ip` is ignored.
 */
export interface WorkloadTarget {
  readonly ip: string;
  readonly port: number;
  readonly hostname?: string;
  readonly service?: { namespace: string; name: string };
}

export interface WorkloadWatcherOptions {
  /** `--default-opaque-ports`: ports whose Server flag is never recomputed. */
  defaultOpaquePorts: ReadonlySet<number>;
  /** Hostname lookups read EndpointSlices when true, Endpoints otherwise. */
  enableEndpointSlices: boolean;
  logger?: Logger;
  /**
   * Where `workload_subscribers`, `workload_updates` and `workload_publishers` go; nothing is
   * recorded without it.
   */
  metrics?: MetricsRegistry;
  /** How long an `ip:port` without listeners is kept, in ms; 0 (the default) drops it at once. */
  lingerMs?: number;
  timers?: LingerTimers;
}

/** A subscribe step that needs an owner fetched before it can attach this pod. */
interface OwnerNeeded {
  readonly pod: Pod;
}

/** An owner fetched for a pod, handed to the next subscribe step. */
interface FetchedOwner {
  readonly pod: Pod;
  readonly owner: Owner;
}

/**
 * The workload behind an `ip:port` for GetProfile: one publisher per subscribed
 * `ip:port`, kept current from Pod, ExternalWorkload and Server events. Listeners hear about a
 * pod starting or stopping to run, every ExternalWorkload change, and Server-driven opacity
 * flips; each gets its own copy of the address.
 */
export class WorkloadWatcher {
  readonly #cluster: Cluster;
  readonly #logger: Logger;
  readonly #metrics: WorkloadMetrics;
  readonly #queue: SerialQueue;
  readonly #publishers: PublisherRegistry<WorkloadPublisher>;
  readonly #context: PublisherContext;
  readonly #enableEndpointSlices: boolean;
  readonly #removeHandlers: (() => void)[];
  #subscribers = 0;
  #stopped = false;

  /** Registers the cache handlers; create it before `cluster.start()` so they see every add. */
  constructor(cluster: Cluster, options: WorkloadWatcherOptions) {
    this.#cluster = cluster;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = new WorkloadMetrics(options.metrics ?? noopMetrics);
    this.#enableEndpointSlices = options.enableEndpointSlices;
    this.#queue = new SerialQueue({ logger: this.#logger });
    this.#publishers = new PublisherRegistry({
      queue: this.#queue,
      gauge: {
        name: "workload_publishers",
        help: "Subscribed ip:port pairs: one workload publisher each.",
      },
      metrics: options.metrics ?? noopMetrics,
      logger: this.#logger,
      lingerMs: options.lingerMs,
      timers: options.timers,
      // Pod events reach every subscribed port of the pod's IPs, declared or not.
      groupOf: (publisher) => publisher.ip,
    });
    this.#context = {
      defaultOpaquePorts: options.defaultOpaquePorts,
      logger: this.#logger,
      servers: () => cluster.servers.list(),
      runningPodAt: (ip, port) => {
        try {
          const { pod } = resolveWorkloadByIp(cluster, ip, port);
          return pod !== undefined && podIsRunning(pod) ? pod : undefined;
        } catch {
          return undefined;
        }
      },
      cachedOwner: (pod) => cachedPodOwner(cluster, pod),
      fetchOwner: (pod) => fetchPodOwner(cluster, pod),
      isActive: (publisher) =>
        !this.#stopped &&
        this.#publishers.has(publisherKey(publisher.ip, publisher.port), publisher),
      countUpdate: () => this.#metrics.countUpdate(),
      run: (task) => this.#queue.run(task),
    };
    this.#removeHandlers = [
      cluster.pods.addHandler({
        add: (pod) => this.#podEvent(pod, false),
        update: (oldPod, newPod) => {
          // The deletion mark is not an event of its own; the delete follows.
          if (!oldPod.metadata.deletionTimestamp && newPod.metadata.deletionTimestamp) return;
          this.#podEvent(newPod, false);
        },
        delete: (pod) => this.#podEvent(pod, true),
      }),
      cluster.externalWorkloads.addHandler({
        add: (ew) => this.#externalWorkloadEvent(ew, ew),
        update: (oldEw, newEw) => {
          if (!oldEw.metadata.deletionTimestamp && newEw.metadata.deletionTimestamp) return;
          this.#externalWorkloadEvent(newEw, newEw);
        },
        delete: (ew) => this.#externalWorkloadEvent(ew, null),
      }),
      // The owner of an attached pod is read from these caches; one cached after the pod must
      // still correct it (see "Ordering" in the README).
      cluster.replicaSets.addHandler(this.#ownerHandler("ReplicaSet")),
      cluster.jobs.addHandler(this.#ownerHandler("Job")),
      cluster.servers.addHandler({
        add: (server) => this.#serversChanged([server]),
        // The old Server too: one that stops selecting a workload must still recompute it.
        update: (oldServer, newServer) => this.#serversChanged([oldServer, newServer]),
        delete: (server) => this.#serversChanged([server]),
      }),
    ];
  }

  /**
   * Starts following `target` and sends the listener the current address before resolving to
   * the IP to unsubscribe with (for a hostname target, the pod's primary IP). Rejects with a
   * WorkloadLookupError on a conflict or a failed hostname lookup, and when the initial update
   * throws (the listener is then not kept).
   */
  async subscribe(target: WorkloadTarget, listener: WorkloadListener): Promise<string> {
    let fetched: FetchedOwner | undefined;
    for (;;) {
      if (this.#stopped) throw new Error("the workload watcher is stopped");
      const step = await this.#serialised(() => this.#subscribeNow(target, listener, fetched));
      if (typeof step === "string") return step;
      // The network wait happens between tasks; the next step re-resolves everything.
      fetched = { pod: step.pod, owner: await fetchPodOwner(this.#cluster, step.pod) };
    }
  }

  /** Stops notifying this listener; the publisher goes with its last listener. */
  unsubscribe(ip: string, port: number, listener: WorkloadListener): void {
    const key = publisherKey(canonical(ip), port);
    const publisher = this.#publishers.get(key);
    if (publisher === undefined) {
      this.#logger.error("cannot unsubscribe from unknown ip:port", { ip, port });
      return;
    }
    if (publisher.removeListener(listener)) this.#subscribers--;
    this.#publishers.release(key);
    this.#metrics.setSubscribers(this.#subscribers);
  }

  /** Removes the cache handlers and forgets every publisher; listeners are not told. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const remove of this.#removeHandlers) remove();
    this.#publishers.clear();
    this.#subscribers = 0;
    this.#metrics.setSubscribers(0);
  }

  /**
   * Runs a subscribe step as a task of the watcher: now when nothing else runs (the initial
   * update is then sent before `subscribe` returns), else after the round under way.
   */
  #serialised<T>(step: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      this.#queue.run(() => {
        try {
          resolve(step());
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /**
   * One synchronous subscribe task, so no event falls between the registration and the initial
   * update: resolve, get or build the publisher, register, send the initial update. Returns the
   * IP, or the pod whose owner must be fetched first. After one fetch (`fetched` set) it no
   * longer waits: a pod that changed meanwhile gets the cache answer.
   */
  #subscribeNow(
    target: WorkloadTarget,
    listener: WorkloadListener,
    fetched: FetchedOwner | undefined,
  ): string | OwnerNeeded {
    const { ip, resolved } = this.#resolve(target);
    const port = target.port;
    const key = publisherKey(ip, port);
    const existing = this.#publishers.get(key);
    let publisher: WorkloadPublisher;
    if (existing !== undefined) {
      // Kept again if it was lingering.
      publisher = this.#publishers.acquire(key, () => existing);
    } else {
      // A new publisher starts from this resolution; an existing one ignores it.
      const { pod, externalWorkload } = resolved;
      let owner: Owner | undefined;
      if (pod !== undefined && podIsRunning(pod)) {
        owner = this.#context.cachedOwner(pod);
        if (owner === undefined && fetched !== undefined) {
          owner = samePod(fetched.pod, pod) ? fetched.owner : this.#cluster.podOwner(pod);
        }
        if (owner === undefined) return { pod };
      }
      publisher = this.#publishers.acquire(
        key,
        () => new WorkloadPublisher(ip, port, this.#context),
      );
      if (pod !== undefined && owner !== undefined) publisher.attach(pod, owner);
      if (externalWorkload !== undefined) publisher.externalWorkloadChanged(externalWorkload);
    }
    try {
      publisher.addListener(listener);
    } catch (err) {
      this.#publishers.release(key);
      const reason = err instanceof Error ? err.message : String(err);
      throw new WorkloadLookupError("UNKNOWN", `failed to send initial update: ${reason}`, {
        cause: err,
      });
    }
    this.#metrics.countUpdate();
    this.#subscribers++;
    this.#metrics.setSubscribers(this.#subscribers);
    return ip;
  }

  #resolve(target: WorkloadTarget): { ip: string; resolved: ResolvedWorkload } {
    if (target.hostname) {
      if (target.service === undefined) {
        throw new WorkloadLookupError("UNKNOWN", "a hostname lookup needs a service");
      }
      const pod = podByHostname(
        this.#cluster,
        target.hostname,
        target.service,
        this.#enableEndpointSlices,
      );
      // The primary IP only, as upstream. A pod that has none yet (a StatefulSet pod being
      // re-created) cannot be followed by IP; failing lets the proxy retry.
      const podIp = pod.status?.podIP;
      if (!podIp) {
        throw new WorkloadLookupError("UNKNOWN", `pod "${pod.metadata.name}" has no IP`);
      }
      return { ip: canonical(podIp), resolved: { pod } };
    }
    const ip = canonical(target.ip);
    return { ip, resolved: resolveWorkloadByIp(this.#cluster, ip, target.port) };
  }

  #podEvent(pod: Pod, deleted: boolean): void {
    // The initial list of every pod arrives before any subscription: nothing to route.
    if (this.#publishers.size === 0) return;
    for (const publisher of publishersReachedByPod(this.#publishers, pod)) {
      publisher.podChanged(pod, deleted);
    }
  }

  /** An owner's add, or an update that re-parents it; status updates are ignored. */
  #ownerHandler(kind: "ReplicaSet" | "Job"): CacheEventHandler<PartialObjectMetadata> {
    const changed = (owner: PartialObjectMetadata) => {
      const { namespace = "", name } = owner.metadata;
      for (const publisher of this.#publishers.values()) {
        publisher.ownerObjectChanged(kind, namespace, name);
      }
    };
    return {
      add: changed,
      update: (old, owner) => {
        const before = JSON.stringify(old.metadata.ownerReferences ?? null);
        if (before !== JSON.stringify(owner.metadata.ownerReferences ?? null)) changed(owner);
      },
    };
  }

  /** Every publisher of a declared `workloadIP:port`, once each. */
  #externalWorkloadEvent(ew: ExternalWorkload, current: ExternalWorkload | null): void {
    const reached = new Set<WorkloadPublisher>();
    for (const { port } of ew.spec?.ports ?? []) {
      for (const { ip } of ew.spec?.workloadIPs ?? []) {
        const publisher = this.#publishers.get(publisherKey(canonical(ip), port));
        if (publisher !== undefined) reached.add(publisher);
      }
    }
    for (const publisher of reached) publisher.externalWorkloadChanged(current);
  }

  /**
   * The changed Servers only say which workloads to look at; each one's flag comes from
   * all Servers, since several may select the same workload and port.
   */
  #serversChanged(changed: readonly Server[]): void {
    for (const publisher of this.#publishers.values()) publisher.serversChanged(changed);
  }
}
