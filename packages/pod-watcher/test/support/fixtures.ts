// A recording listener and a started watcher shared by this package's tests; the objects come from
// @destination/core/testing.

import type { Address, WorkloadListener } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { replicaSet } from "@destination/test-support/builders";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { WorkloadWatcher, type WorkloadWatcherOptions } from "../../src/workload-watcher.js";

/** What a test compares: the observable fields of an address, in a readable form. */
export interface AddressView {
  ip: string;
  port: number;
  pod: string | null;
  ew: string | null;
  owner: string;
  opaque: boolean;
}

export function view(a: Address): AddressView {
  return {
    ip: a.ip,
    port: a.port,
    pod: a.pod?.metadata.name ?? null,
    ew: a.externalWorkload?.metadata.name ?? null,
    owner: a.ownerKind || a.ownerName ? `${a.ownerKind}/${a.ownerName}` : "",
    opaque: a.opaqueProtocol,
  };
}

/** A listener that records every address it is handed. */
export class RecordingListener implements WorkloadListener {
  readonly received: Address[] = [];

  update(address: Address): void {
    this.received.push(address);
  }

  get views(): AddressView[] {
    return this.received.map(view);
  }
}

/** A cluster with one ReplicaSet (`web-rs` → `deployment/web`) and a started watcher. */
export async function setup(
  options: Partial<WorkloadWatcherOptions> = {},
  cluster: MemoryCluster = new MemoryCluster(),
) {
  const metrics = new InMemoryMetrics();
  cluster.apply(replicaSet("web-rs", "web"));
  const watcher = new WorkloadWatcher(cluster, {
    defaultOpaquePorts: new Set([3306]),
    enableEndpointSlices: true,
    metrics,
    ...options,
  });
  await cluster.start();
  return { cluster, watcher, metrics };
}

/** Lets pending promise callbacks (owner fetches) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
