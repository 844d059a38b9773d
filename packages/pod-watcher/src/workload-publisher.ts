import {
  type Address,
  type ExternalWorkload,
  externalWorkloadOpaquePorts,
  externalWorkloadPortOpaqueByServers,
  type Logger,
  newAddress,
  type Owner,
  type Pod,
  type Publisher,
  podOpaquePorts,
  podPortOpaqueByServers,
  type Server,
  SubscriptionList,
  serverSelectsExternalWorkload,
  serverSelectsPod,
  type WorkloadListener,
} from "@destination/core";
import { podIsRunning, samePod } from "./pod-facts.js";

/** What a publisher needs from its watcher. */
export interface PublisherContext {
  readonly defaultOpaquePorts: ReadonlySet<number>;
  readonly logger: Logger;
  /** Every Server in the cluster: the flag comes from all Servers that select the workload. */
  servers(): readonly Server[];
  /** The owner from the caches, undefined on a miss. */
  cachedOwner(pod: Pod): Owner | undefined;
  /**
   * The Running pod the caches now place at `ip:port`, or undefined (none, or a conflict of
   * several, which leaves the address bare until an event decides).
   */
  runningPodAt(ip: string, port: number): Pod | undefined;
  /** The owner with an API fallback; never rejects. */
  fetchOwner(pod: Pod): Promise<Owner>;
  /** False once the publisher was dropped (last listener gone, watcher stopped). */
  isActive(publisher: WorkloadPublisher): boolean;
  /** Counts one notification round (`workload_updates`). */
  countUpdate(): void;
  /** Runs a listener round now, or after the one under way, so no listener is re-entered. */
  run(task: () => void): void;
}

/** The key of a publisher: an `ip:port`, the IP in canonical text. */
export function publisherKey(ip: string, port: number): string {
  return `${ip}|${port}`;
}

/** An attach waiting for an owner fetch; replaced or dropped when newer events say so. */
interface PendingAttach {
  pod: Pod;
}

/**
 * The state behind one `ip:port` and its listeners: the attached pod or the
 * ExternalWorkload, the owner, and the Server-driven opaque flag. Every method runs to completion
 * synchronously; only the owner fetch of an attach waits, outside any state change.
 */
export class WorkloadPublisher implements Publisher {
  readonly #subscriptions = new SubscriptionList<WorkloadListener>();
  readonly #ctx: PublisherContext;
  #pod: Pod | null = null;
  #externalWorkload: ExternalWorkload | null = null;
  #owner: Owner = { kind: "", name: "" };
  #opaqueProtocol = false;
  #pending: PendingAttach | undefined;

  constructor(
    readonly ip: string,
    readonly port: number,
    ctx: PublisherContext,
  ) {
    this.#ctx = ctx;
  }

  get listenerCount(): number {
    return this.#subscriptions.size;
  }

  /** Dropped with its last listener: an owner fetch still under way attaches nothing. */
  close(): void {
    this.#pending = undefined;
  }

  /** A fresh address per call, so no listener can see another's copy change. */
  address(): Address {
    return this.#addresses()();
  }

  /**
   * Registers a listener and sends it the current address; a throw unregisters it again.
   * Call it as a task of the watcher, so the initial update is not sent inside another round.
   */
  addListener(listener: WorkloadListener): void {
    const subscription = this.#subscriptions.add(listener);
    try {
      listener.update(this.address());
    } catch (err) {
      this.#subscriptions.delete(subscription);
      throw err;
    }
  }

  /** Removes one registration of the listener; false when it was not registered. */
  removeListener(listener: WorkloadListener): boolean {
    return this.#subscriptions.remove(listener) !== undefined;
  }

  /** Makes fresh copies of the address as it is now, however it changes later. */
  #addresses(): () => Address {
    const fields = {
      ip: this.ip,
      port: this.port,
      pod: this.#pod,
      externalWorkload: this.#externalWorkload,
      ownerKind: this.#owner.kind,
      ownerName: this.#owner.name,
      opaqueProtocol: this.#opaqueProtocol,
    };
    return () => newAddress(fields);
  }

  /** Attaches a Running pod whose owner is known: the state a new publisher starts in. */
  attach(pod: Pod, owner: Owner): void {
    this.#pending = undefined;
    this.#pod = pod;
    this.#owner = owner;
    this.#opaqueProtocol = this.#podOpacity(pod);
    this.#notify();
  }

  /**
   * A pod event routed here. Only a change of running state is observable: a detached
   * publisher attaches a Running pod, an attached one detaches when its pod stops running or is
   * deleted. Edits to an attached pod that keeps running are ignored, as upstream does.
   * Events about another pod than the attached one never detach it: with IP reuse and routing
   * by IP alone, a finished pod that once had this IP must not take the live one away. Once
   * the attached pod goes, a Running pod already cached at the address is attached at once.
   */
  podChanged(pod: Pod, deleted: boolean): void {
    const running = !deleted && podIsRunning(pod);
    if (this.#pod !== null) {
      if (!samePod(this.#pod, pod) || running) return;
      this.#detach();
      // The events of one change may come in either order: a folder scan applies the new pod
      // before it deletes the old. A Running pod that already holds the address sends no
      // event of its own later, so it takes over now.
      const successor = this.#ctx.runningPodAt(this.ip, this.port);
      if (successor !== undefined && !samePod(successor, pod)) this.podChanged(successor, false);
      return;
    }
    if (!running) {
      if (this.#pending && samePod(this.#pending.pod, pod)) this.#pending = undefined;
      return;
    }
    const owner = this.#ctx.cachedOwner(pod);
    if (owner !== undefined) {
      this.attach(pod, owner);
      return;
    }
    if (this.#pending && samePod(this.#pending.pod, pod)) {
      this.#pending.pod = pod;
      return;
    }
    // Fetch the owner outside the event task, then attach if nothing changed meanwhile.
    // See README "Owners".
    const pending: PendingAttach = { pod };
    this.#pending = pending;
    void this.#ctx.fetchOwner(pod).then((fetched) => {
      if (this.#pending !== pending || this.#pod !== null || !this.#ctx.isActive(this)) return;
      this.attach(pending.pod, fetched);
    });
  }

  /**
   * An ExternalWorkload event routed here, or null for its deletion. Always notifies. The
   * Server flag is recomputed from scratch and cleared on delete; the owner follows the EW's
   * single owner reference and is cleared otherwise (upstream keeps stale values of both).
   */
  externalWorkloadChanged(ew: ExternalWorkload | null): void {
    this.#externalWorkload = ew;
    const refs = ew?.metadata.ownerReferences ?? [];
    const only = refs.length === 1 ? refs[0] : undefined;
    // The owner kind stays as written (the endpoints watcher lower-cases it), as upstream.
    this.#owner = only ? { kind: only.kind, name: only.name } : { kind: "", name: "" };
    if (ew === null) {
      this.#opaqueProtocol = false;
    } else {
      try {
        this.#opaqueProtocol = externalWorkloadPortOpaqueByServers(
          this.#ctx.servers(),
          ew,
          this.port,
        );
      } catch (err) {
        // A Server with an invalid selector leaves the flag as it was.
        this.#ctx.logger.error("cannot compute opaque protocol for externalworkload", {
          externalWorkload: `${ew.metadata.namespace}/${ew.metadata.name}`,
          error: String(err),
        });
      }
    }
    this.#notify();
  }

  /**
   * Servers were added, changed or deleted. Recomputes the flag from all Servers when one
   * of `changed` selects this workload, unless the port is opaque by annotation or defaults
   * anyway; recomputing from false lets the flag turn off again. Notifies on a flip only.
   */
  serversChanged(changed: readonly Server[]): void {
    const pod = this.#pod;
    const ew = this.#externalWorkload;
    let next: boolean;
    if (pod !== null) {
      if (!changed.some((s) => this.#selects(s, () => serverSelectsPod(s, pod)))) return;
      if (podOpaquePorts(pod, this.#ctx.defaultOpaquePorts, this.#ctx.logger).has(this.port)) {
        return;
      }
      next = this.#podOpacity(pod);
    } else if (ew !== null) {
      if (!changed.some((s) => this.#selects(s, () => serverSelectsExternalWorkload(s, ew)))) {
        return;
      }
      const annotated = externalWorkloadOpaquePorts(
        ew,
        this.#ctx.defaultOpaquePorts,
        this.#ctx.logger,
      );
      if (annotated.has(this.port)) return;
      try {
        // The ExternalWorkload check, not the pod one (which upstream runs and always fails).
        next = externalWorkloadPortOpaqueByServers(this.#ctx.servers(), ew, this.port);
      } catch (err) {
        this.#ctx.logger.error("cannot compute opaque protocol for externalworkload", {
          externalWorkload: `${ew.metadata.namespace}/${ew.metadata.name}`,
          error: String(err),
        });
        return;
      }
    } else {
      return;
    }
    if (next === this.#opaqueProtocol) return;
    this.#opaqueProtocol = next;
    this.#notify();
  }

  /**
   * A ReplicaSet or Job was cached or re-parented. When the attached pod is owned by it, the
   * owner is read again, so a ReplicaSet cached after its pod still yields the Deployment.
   * Notifies only when the owner changed.
   */
  ownerObjectChanged(kind: "ReplicaSet" | "Job", namespace: string, name: string): void {
    const pod = this.#pod;
    if (pod === null || (pod.metadata.namespace ?? "") !== namespace) return;
    const refs = pod.metadata.ownerReferences ?? [];
    const parent = refs.length === 1 ? refs[0] : undefined;
    if (parent?.kind !== kind || parent.name !== name) return;
    const owner = this.#ctx.cachedOwner(pod);
    if (owner === undefined) return;
    if (owner.kind === this.#owner.kind && owner.name === this.#owner.name) return;
    this.#owner = owner;
    this.#notify();
  }

  #detach(): void {
    this.#pod = null;
    this.#owner = { kind: "", name: "" };
    this.#opaqueProtocol = false;
    this.#notify();
  }

  /** Host ports count as well: the container answers on both (matchHostPort). */
  #podOpacity(pod: Pod): boolean {
    return podPortOpaqueByServers(
      this.#ctx.servers(),
      pod,
      this.port,
      { matchHostPort: true },
      this.#ctx.logger,
    );
  }

  /** Selector test where an invalid selector selects nothing (logged). */
  #selects(server: Server, test: () => boolean): boolean {
    try {
      return test();
    } catch (err) {
      this.#ctx.logger.warn("Server with an invalid selector skipped", {
        server: `${server.metadata.namespace}/${server.metadata.name}`,
        error: String(err),
      });
      return false;
    }
  }

  /**
   * One round: every listener registered now gets the address as it is now, unless it left
   * before its turn. A round caused from inside a listener runs after the current one.
   */
  #notify(): void {
    const address = this.#addresses();
    const subscriptions = [...this.#subscriptions];
    this.#ctx.run(() => {
      for (const subscription of subscriptions) {
        if (!subscription.active) continue;
        try {
          subscription.listener.update(address());
        } catch (err) {
          this.#ctx.logger.warn("error sending update to workload listener", {
            ip: this.ip,
            port: this.port,
            error: String(err),
          });
        }
      }
    });
    this.#ctx.countUpdate();
  }
}
