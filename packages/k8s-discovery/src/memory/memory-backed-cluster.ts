import type { ClusterIndexes } from "../cluster.js";
import type { ClusterMetrics } from "../cluster-metrics.js";
import { observeInformerLag } from "../informer-lag.js";
import type { MemoryCluster } from "./memory-cluster.js";

/**
 * What the cluster and manifests backends share: their caches and indexes are those of a
 * MemoryCluster the backend fills (from list/watch or from files), with informer lag observed on
 * them once per event (README "Metrics") and the synced signal read from it.
 */
export abstract class MemoryBackedCluster {
  readonly name: string;
  readonly services: MemoryCluster["services"];
  readonly endpointSlices: MemoryCluster["endpointSlices"];
  readonly endpoints: MemoryCluster["endpoints"];
  readonly pods: MemoryCluster["pods"];
  readonly serviceProfiles: MemoryCluster["serviceProfiles"];
  readonly servers: MemoryCluster["servers"];
  readonly externalWorkloads: MemoryCluster["externalWorkloads"];
  readonly nodes: MemoryCluster["nodes"];
  readonly replicaSets: MemoryCluster["replicaSets"];
  readonly jobs: MemoryCluster["jobs"];
  readonly indexes: ClusterIndexes;
  protected readonly memory: MemoryCluster;

  protected constructor(memory: MemoryCluster, metrics: ClusterMetrics) {
    this.memory = memory;
    this.name = memory.name;
    this.services = memory.services;
    this.endpointSlices = memory.endpointSlices;
    this.endpoints = memory.endpoints;
    this.pods = memory.pods;
    this.serviceProfiles = memory.serviceProfiles;
    this.servers = memory.servers;
    this.externalWorkloads = memory.externalWorkloads;
    this.nodes = memory.nodes;
    this.replicaSets = memory.replicaSets;
    this.jobs = memory.jobs;
    this.indexes = memory.indexes;
    observeInformerLag(memory, metrics);
  }

  whenSynced(): Promise<void> {
    return this.memory.whenSynced();
  }

  hasSynced(): boolean {
    return this.memory.hasSynced();
  }
}
