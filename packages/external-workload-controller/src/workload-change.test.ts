import type { ExternalWorkload } from "@destination/core";
import { describe, expect, it } from "vitest";
import { service, workload } from "../test/support/objects.js";
import { servicesSelecting } from "./service-membership.js";
import { servicesToSyncOnUpdate, workloadChange } from "./workload-change.js";

const ew = (
  ports: Record<number, string>,
  ips: string[],
  extra: Partial<ExternalWorkload["metadata"]> = {},
) => {
  const w = workload("wlkd1", {
    ips,
    ports: Object.entries(ports).map(([port, name]) => ({
      port: Number(port),
      ...(name ? { name } : {}),
    })),
  });
  Object.assign(w.metadata, extra);
  return w;
};

describe("workloadChange", () => {
  it.each([
    {
      name: "no change",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-1" }, ["192.0.2.0"]),
      endpoints: false,
    },
    {
      name: "an IP added",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-1" }, ["192.0.2.0", "192.0.3.0"]),
      endpoints: true,
    },
    {
      name: "an IP removed",
      old: ew({ 1: "port-1" }, ["192.0.2.0", "192.0.3.0"]),
      updated: ew({ 1: "port-1" }, ["192.0.2.0"]),
      endpoints: true,
    },
    {
      name: "an IP changed",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-1" }, ["192.0.3.0"]),
      endpoints: true,
    },
    {
      name: "a port added",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-1", 2: "port-2" }, ["192.0.2.0"]),
      endpoints: true,
    },
    {
      name: "a port removed",
      old: ew({ 1: "port-1", 2: "port-2" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-1" }, ["192.0.2.0"]),
      endpoints: true,
    },
    {
      name: "a port number changed",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 2: "port-1" }, ["192.0.2.0"]),
      endpoints: true,
    },
    {
      name: "a port renamed",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "port-foo" }, ["192.0.2.0"]),
      endpoints: true,
    },
    {
      name: "a port name removed",
      old: ew({ 1: "port-1" }, ["192.0.2.0"]),
      updated: ew({ 1: "" }, ["192.0.2.0"]),
      endpoints: true,
    },
  ])("$name: endpoints may change = $endpoints", ({ old, updated, endpoints }) => {
    expect(workloadChange(old, updated).endpoints).toBe(endpoints);
  });

  it("counts readiness, a deletion mark and a port's protocol, not an annotation", () => {
    const base = workload("a");
    expect(workloadChange(base, workload("a", { ready: false })).endpoints).toBe(true);
    expect(
      workloadChange(base, {
        ...base,
        metadata: { ...base.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
      }).endpoints,
    ).toBe(true);
    expect(
      workloadChange(base, workload("a", { ports: [{ port: 8080, protocol: "UDP" }] })).endpoints,
    ).toBe(true);
    expect(
      workloadChange(base, { ...base, metadata: { ...base.metadata, annotations: { a: "b" } } }),
    ).toEqual({ endpoints: false, labels: false });
  });

  it("tells a label change apart", () => {
    expect(workloadChange(workload("a"), workload("a", { labels: { app: "other" } }))).toEqual({
      endpoints: false,
      labels: true,
    });
  });
});

describe("servicesToSyncOnUpdate (upstream's TestWorkloadServicesToUpdate)", () => {
  const sync = (
    old: ExternalWorkload,
    updated: ExternalWorkload,
    services: ReturnType<typeof service>[],
  ) => {
    const change = workloadChange(old, updated);
    const before = servicesSelecting(old, services);
    const after = servicesSelecting(updated, services);
    return [...servicesToSyncOnUpdate(change, before, after)].sort();
  };

  it("syncs nothing when nothing changed", () => {
    expect(
      sync(workload("w"), workload("w"), [service("svc-1", { selector: { app: "test" } })]),
    ).toEqual([]);
  });

  it("syncs the Services of before and after when labels and ports changed", () => {
    const old = workload("w", { labels: { app: "test-1" }, ports: [{ port: 1 }] });
    const updated = workload("w", { labels: { app: "test-2" }, ports: [{ port: 2 }] });
    const services = [
      service("svc-1", { selector: { app: "test-1" } }),
      service("svc-2", { selector: { app: "test-2" } }),
    ];
    expect(sync(old, updated, services)).toEqual(["ns/svc-1", "ns/svc-2"]);
  });

  it("syncs the Services selecting it when only its ports changed", () => {
    const old = workload("w", { labels: { app: "test-1" }, ports: [{ port: 1 }] });
    const updated = workload("w", { labels: { app: "test-1" }, ports: [{ port: 2 }] });
    expect(sync(old, updated, [service("svc-1", { selector: { app: "test-1" } })])).toEqual([
      "ns/svc-1",
    ]);
  });

  it("syncs only the Services it left or joined when only its labels changed", () => {
    const old = workload("w", { labels: { app: "test-1", env: "staging" } });
    const updated = workload("w", { labels: { app: "test-1", env: "prod" } });
    const services = [
      service("internal", { selector: { app: "test-1" } }),
      service("staging", { selector: { env: "staging" } }),
      service("prod", { selector: { env: "prod" } }),
    ];
    expect(sync(old, updated, services)).toEqual(["ns/prod", "ns/staging"]);
  });

  it("leaves Services without a selector and of other namespaces out", () => {
    const w = workload("w");
    expect([
      ...servicesSelecting(w, [
        service("none", { selector: null }),
        service("other", { namespace: "elsewhere" }),
        service("all", { selector: {} }),
      ]),
    ]).toEqual(["ns/all"]);
  });
});
