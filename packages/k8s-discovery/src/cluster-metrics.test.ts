import { noopMetrics } from "@destination/core";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it } from "vitest";
import { CACHE_SIZE_METRICS, clusterMetrics, registerCacheSizeMetrics } from "./cluster-metrics.js";
import { MemoryCluster } from "./memory/memory-cluster.js";

describe("cluster metrics", () => {
  it("names the cache-size gauges as upstream does", () => {
    expect(CACHE_SIZE_METRICS).toEqual({
      Service: "service_cache_size",
      EndpointSlice: "endpointslices_cache_size",
      Endpoints: "endpoints_cache_size",
      Pod: "pod_cache_size",
      ServiceProfile: "serviceprofile_cache_size",
      Server: "server_cache_size",
      ExternalWorkload: "externalworkload_cache_size",
      Node: "node_cache_size",
      ReplicaSet: "replicaset_cache_size",
      Job: "job_cache_size",
    });
  });

  it("registers upstream's informer-lag histograms, unlabelled, with upstream's buckets", () => {
    const names: string[] = [];
    const shapes = new Set<string>();
    clusterMetrics(
      {
        ...noopMetrics,
        histogram(name, help, labelNames, buckets) {
          names.push(name);
          shapes.add(`[${labelNames.join(",")}] ${buckets.join(" ")}`);
          return noopMetrics.histogram(name, help, labelNames, buckets);
        },
      },
      "local",
    );
    expect(names.sort()).toEqual([
      "endpoints_informer_lag_seconds",
      "endpointslices_informer_lag_seconds",
      "externalworkload_informer_lag_seconds",
      "pods_informer_lag_seconds",
      "servers_informer_lag_seconds",
      "serviceprofiles_informer_lag_seconds",
      "services_informer_lag_seconds",
    ]);
    expect([...shapes]).toEqual(["[] 0.5 1 2.5 5 10 25 50 100 250 1000"]);
  });

  it("reads cache sizes at scrape time, per cluster, for the kinds each serves", () => {
    const registry = new InMemoryMetrics();
    const local = new MemoryCluster({ servedKinds: ["Pod", "EndpointSlice"] });
    const east = new MemoryCluster({ name: "east", servedKinds: ["Pod"] });
    const clusters = [local, east];
    registerCacheSizeMetrics(registry, () => clusters);
    local.apply({ apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "shop" } });
    local.apply({ apiVersion: "v1", kind: "Pod", metadata: { name: "b", namespace: "shop" } });
    expect(registry.collect("pod_cache_size")).toEqual([
      { labels: { cluster: "local" }, value: 2 },
      { labels: { cluster: "east" }, value: 0 },
    ]);
    expect(registry.collect("endpointslices_cache_size")).toEqual([
      { labels: { cluster: "local" }, value: 0 },
    ]);
    expect(registry.collect("endpoints_cache_size")).toEqual([]);
    clusters.pop(); // unlinked
    expect(registry.collect("pod_cache_size")).toEqual([
      { labels: { cluster: "local" }, value: 2 },
    ]);
  });

  it("counts watch activity by cluster and kind, and observes lag without labels", () => {
    const registry = new InMemoryMetrics();
    const metrics = clusterMetrics(registry, "local");
    metrics.watchRestarted("Pod");
    metrics.watchRestarted("Pod");
    metrics.relisted("Service");
    metrics.errored("Pod", "list");
    metrics.eventReceived("Pod", "ADDED");
    metrics.observeLag("Pod", 1.5);
    metrics.observeLag("Node", 1.5); // no histogram for metadata caches
    expect(registry.value("k8s_watch_restarts_total", { cluster: "local", kind: "Pod" })).toBe(2);
    expect(registry.value("k8s_relists_total", { cluster: "local", kind: "Service" })).toBe(1);
    expect(
      registry.value("k8s_watch_errors_total", { cluster: "local", kind: "Pod", reason: "list" }),
    ).toBe(1);
    expect(
      registry.value("k8s_watch_events_total", { cluster: "local", kind: "Pod", type: "ADDED" }),
    ).toBe(1);
    expect(registry.value("pods_informer_lag_seconds_count")).toBe(1);
  });
});
