import type {
  Clock,
  EndpointSlice,
  ExternalWorkload,
  Logger,
  MetricsRegistry,
  Service,
} from "@destination/core";
import { silentLogger, systemClock } from "@destination/core";
import type { Cluster, KubeApi } from "@destination/k8s-discovery";
import { LeaseElector } from "./lease-elector.js";
import { noopQueueMetrics, queueMetrics } from "./queue-metrics.js";
import { serviceKey, serviceSelects, servicesSelecting } from "./service-membership.js";
import { planEndpointSlices } from "./slice-plan.js";
import { SliceTracker } from "./slice-tracker.js";
import { LeaseLostError, writeSlicePlan } from "./slice-writer.js";
import {
  LEASE_DURATION_MS,
  LEASE_NAME,
  LEASE_RENEW_DEADLINE_MS,
  LEASE_RETRY_PERIOD_MS,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MAX_SYNC_RETRIES,
  QUEUE_NAME,
  SERVICE_NAME_LABEL,
} from "./upstream-constants.js";
import { WorkQueue } from "./work-queue.js";
import { servicesToSyncOnUpdate, workloadChange } from "./workload-change.js";

export interface ExternalWorkloadControllerOptions {
  /**
   * The caches the controller reads: Services, EndpointSlices (slice mode) and ExternalWorkloads.
   * The controller registers its handlers when it is created, so create it before `cluster.start()`.
   */
  readonly cluster: Cluster;
  /** Where the slices and the Lease are written: the same cluster's API (`KubeCluster.api`). */
  readonly api: KubeApi;
  /** This replica's identity in the Lease; upstream's `HOSTNAME` (the pod's name). */
  readonly hostname: string;
  /** The namespace of the Lease: `-controller-namespace`. */
  readonly controllerNamespace: string;
  /** `-export-queue-metrics`: the work queue's `workqueue_*` metrics; true by default. */
  readonly exportQueueMetrics?: boolean;
  /** Where the queue metrics go; none by default. */
  readonly metrics?: MetricsRegistry;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Upstream's 30 s / 10 s / 2 s by default; tests shorten them. */
  readonly lease?: {
    readonly durationMs?: number;
    readonly renewDeadlineMs?: number;
    readonly retryPeriodMs?: number;
  };
}

/**
 * Linkerd's mesh-expansion controller: while this replica holds the Lease
 * `linkerd-destination-endpoint-write`, it writes the EndpointSlices of every Service whose
 * selector matches ExternalWorkloads and keeps them current as Services, workloads and slices
 * change. Without the Lease it writes nothing. See the README for what it matches of upstream.
 */
export class ExternalWorkloadController {
  readonly #cluster: Cluster;
  readonly #api: KubeApi;
  readonly #hostname: string;
  readonly #logger: Logger;
  readonly #queue: WorkQueue;
  readonly #elector: LeaseElector;
  readonly #dropped: () => void;
  readonly #removeHandlers: (() => void)[] = [];
  #tracker = new SliceTracker();
  #leading = false;
  #started = false;
  #worker: Promise<void> | undefined;

  constructor(options: ExternalWorkloadControllerOptions) {
    this.#cluster = options.cluster;
    this.#api = options.api;
    this.#hostname = options.hostname;
    this.#logger = options.logger ?? silentLogger;
    const clock = options.clock ?? systemClock;
    const exported = (options.exportQueueMetrics ?? true) && options.metrics !== undefined;
    const metrics =
      exported && options.metrics ? queueMetrics(options.metrics, QUEUE_NAME) : noopQueueMetrics;
    this.#dropped = () => metrics.dropped();
    this.#queue = new WorkQueue({ clock, metrics });
    this.#elector = new LeaseElector({
      api: options.api,
      namespace: options.controllerNamespace,
      name: LEASE_NAME,
      identity: options.hostname,
      leaseDurationMs: options.lease?.durationMs ?? LEASE_DURATION_MS,
      renewDeadlineMs: options.lease?.renewDeadlineMs ?? LEASE_RENEW_DEADLINE_MS,
      retryPeriodMs: options.lease?.retryPeriodMs ?? LEASE_RETRY_PERIOD_MS,
      clock,
      logger: this.#logger,
      onStartedLeading: () => this.#startLeading(),
      onStoppedLeading: () => this.#stopLeading(),
      onNewLeader: (identity) => {
        if (identity === this.#hostname) this.#logger.info(`${this.#hostname} acquired lease`);
      },
    });
    this.#registerHandlers();
  }

  /** True while this replica holds the Lease and so writes the slices. */
  get isLeading(): boolean {
    return this.#leading;
  }

  /** Starts campaigning for the Lease and the sync loop; call once the caches have synced. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#worker = this.#work();
    this.#elector.start();
  }

  /**
   * Stops: the sync in progress finishes, then the Lease is released (upstream's
   * ReleaseOnCancel) so another replica takes over at once. `releaseLease: false` leaves it to
   * expire, as a replica that dies does.
   */
  async stop(options: { releaseLease?: boolean } = {}): Promise<void> {
    this.#queue.shutDown();
    await this.#worker;
    await this.#elector.stop({ release: options.releaseLease ?? true });
    for (const remove of this.#removeHandlers.splice(0)) remove();
  }

  #startLeading(): void {
    // Nothing was tracked while another replica wrote: start from what the caches hold.
    this.#tracker = new SliceTracker();
    this.#leading = true;
    for (const service of this.#cluster.services.list()) this.#onService(service);
  }

  #stopLeading(): void {
    this.#leading = false;
    this.#queue.clear();
    this.#logger.info(`${this.#hostname} released lease`);
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.#queue.get();
      if (key === undefined) return;
      try {
        if (this.#leading) await this.#syncService(key);
        this.#queue.forget(key);
      } catch (err) {
        this.#handleError(key, err);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  #handleError(key: string, err: unknown): void {
    if (err instanceof LeaseLostError) return;
    if (this.#queue.numRequeues(key) < MAX_SYNC_RETRIES) {
      this.#logger.debug(`syncing Service ${key} failed; retrying`, { error: err });
      this.#queue.addRateLimited(key);
      return;
    }
    this.#queue.forget(key);
    this.#dropped();
    this.#logger.error(`dropped Service ${key} out of update queue: ${(err as Error).message}`);
  }

  async #syncService(key: string): Promise<void> {
    const slash = key.indexOf("/");
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const service = this.#cluster.services.get(namespace, name);
    if (service === undefined) {
      // Its slices go with it: they name it as their controlling owner.
      this.#tracker.deleteService(namespace, name);
      return;
    }
    if (service.spec?.type === "ExternalName" || service.spec?.selector == null) return;
    const workloads = this.#cluster.externalWorkloads
      .list(namespace)
      .filter((w) => serviceSelects(service, w))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const slices = this.#cluster.indexes
      .endpointSlicesOfService(namespace, name)
      .filter((s) => managedByUs(s) && !s.metadata.deletionTimestamp);
    if (this.#tracker.staleSlices(namespace, name, slices)) {
      this.#logger.warn(
        `detected EndpointSlice informer cache is out of date when processing ${key}`,
      );
      throw new Error("EndpointSlice informer cache is out of date");
    }
    const plan = planEndpointSlices(service, workloads, slices);
    for (const { workload, port } of plan.undeclaredPorts) {
      this.#logger.error(
        `failed to find port for service ${key}: no suitable port for targetPort ${String(port.targetPort)} on workload ${workload}`,
      );
    }
    this.#logger.debug(
      `reconciliation result for ${key}: ${plan.create.length} to add, ${plan.update.length} to update, ${plan.delete.length} to remove`,
    );
    await writeSlicePlan(this.#api, service, plan, this.#tracker, () => this.#leading);
  }

  #registerHandlers(): void {
    const { services, endpointSlices, externalWorkloads } = this.#cluster;
    this.#removeHandlers.push(
      services.addHandler({
        add: (s) => this.#onService(s),
        update: (_, s) => this.#onService(s),
        delete: (s) => this.#onService(s),
      }),
      endpointSlices.addHandler({
        add: (s) => {
          if (this.#leading && managedByUs(s) && this.#tracker.shouldSync(s)) this.#queueFor(s);
        },
        update: (old, s) => this.#onSliceUpdate(old, s),
        delete: (s) => {
          if (!this.#leading || !managedByUs(s) || !this.#tracker.has(s)) return;
          // A slice we did not delete ourselves is written again.
          if (!this.#tracker.handleDeletion(s)) this.#queueFor(s);
        },
      }),
      externalWorkloads.addHandler({
        add: (w) => this.#queueServicesOf(w),
        update: (old, w) => this.#onWorkloadUpdate(old, w),
        delete: (w) => this.#queueServicesOf(w),
      }),
    );
  }

  #onService(service: Service): void {
    const namespace = service.metadata.namespace ?? "";
    // Upstream leaves the Services of kube-system alone.
    if (!this.#leading || namespace === "kube-system") return;
    this.#queue.add(serviceKey(namespace, service.metadata.name));
  }

  #onSliceUpdate(old: EndpointSlice, slice: EndpointSlice): void {
    if (!this.#leading) return;
    // The service-name label may be changed by hand; both Services then need a sync.
    if (old.metadata.labels?.[SERVICE_NAME_LABEL] !== slice.metadata.labels?.[SERVICE_NAME_LABEL]) {
      this.#queueFor(slice);
      this.#queueFor(old);
      return;
    }
    if (
      managedByUs(old) !== managedByUs(slice) ||
      (managedByUs(slice) && this.#tracker.shouldSync(slice))
    ) {
      this.#queueFor(slice);
    }
  }

  #queueFor(slice: EndpointSlice): void {
    const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    if (service === undefined || service === "") {
      this.#logger.error(
        `couldn't get key for EndpointSlice ${slice.metadata.namespace ?? ""}/${slice.metadata.name}: no ${SERVICE_NAME_LABEL} label`,
      );
      return;
    }
    this.#queue.add(serviceKey(slice.metadata.namespace ?? "", service));
  }

  #queueServicesOf(workload: ExternalWorkload): void {
    if (!this.#leading) return;
    for (const key of servicesSelecting(workload, this.#servicesOf(workload))) this.#queue.add(key);
  }

  #onWorkloadUpdate(old: ExternalWorkload, workload: ExternalWorkload): void {
    // The periodic resync hands over the same version: nothing changed.
    if (!this.#leading || old.metadata.resourceVersion === workload.metadata.resourceVersion)
      return;
    const change = workloadChange(old, workload);
    if (!change.endpoints && !change.labels) {
      this.#logger.debug(
        `skipping update; nothing has changed between old rv ${old.metadata.resourceVersion} and new rv ${workload.metadata.resourceVersion}`,
      );
      return;
    }
    const services = this.#servicesOf(workload);
    const after = servicesSelecting(workload, services);
    const before = change.labels ? servicesSelecting(old, services) : new Set<string>();
    for (const key of servicesToSyncOnUpdate(change, before, after)) this.#queue.add(key);
  }

  #servicesOf(workload: ExternalWorkload): Service[] {
    return this.#cluster.services.list(workload.metadata.namespace ?? "");
  }
}

function managedByUs(slice: EndpointSlice): boolean {
  return slice.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY;
}
