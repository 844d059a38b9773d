import type { EndpointSlice } from "@destination/core";
import { describe, expect, it } from "vitest";
import {
  applyPlan,
  endpointsOf,
  existingSlice,
  HTTP_NAMED,
  manyWorkloads,
  service,
  workload,
} from "../test/support/objects.js";
import { type NewEndpointSlice, planEndpointSlices, type SlicePlan } from "./slice-plan.js";
import { MANAGED_BY } from "./upstream-constants.js";

/** Freezes a cached object all the way down: the planner must copy before it changes one. */
function frozen<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

const lengths = (slices: readonly { endpoints?: unknown[] | null }[]) =>
  slices.map((s) => (s.endpoints ?? []).length).sort((a, b) => b - a);

const counts = (plan: SlicePlan) => ({
  create: plan.create.length,
  update: plan.update.length,
  delete: plan.delete.length,
});

describe("planEndpointSlices: new slices", () => {
  it.each([
    { family: ["IPv4"], ips: ["192.0.2.0"], types: ["IPv4"] },
    { family: ["IPv6"], ips: ["2001:db8::8a2e:370:7334"], types: ["IPv6"] },
    {
      family: ["IPv4", "IPv6"],
      ips: ["192.0.2.0", "2001:db8::8a2e:370:7334"],
      types: ["IPv4", "IPv6"],
    },
  ])("creates one slice per address type of the Service ($types)", ({ family, ips, types }) => {
    const svc = service("web", { families: family });
    const ew = workload("wlkd-1", { ips });
    const plan = planEndpointSlices(svc, [ew], []);
    expect(counts(plan)).toEqual({ create: types.length, update: 0, delete: 0 });
    for (const [i, type] of types.entries()) {
      const slice = plan.create.find((s) => s.addressType === type) as NewEndpointSlice;
      expect(slice.endpoints).toEqual([
        {
          addresses: [ips[i]],
          conditions: { ready: true, serving: true, terminating: false },
          targetRef: {
            kind: "ExternalWorkload",
            namespace: "ns",
            name: "wlkd-1",
            uid: "uid-wlkd-1",
          },
        },
      ]);
    }
  });

  it("names, labels and owns a new slice as upstream does", () => {
    const svc = service("web", { labels: { team: "shop" } });
    const [slice] = planEndpointSlices(svc, [workload("a")], []).create;
    expect(slice?.metadata).toEqual({
      generateName: "linkerd-external-web-",
      namespace: "ns",
      labels: {
        team: "shop",
        "kubernetes.io/service-name": "web",
        "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
      },
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name: "web",
          uid: "uid-web",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(slice?.ports).toEqual([{ port: 8080, protocol: "TCP" }]);
    expect(slice).toMatchObject({ apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" });
  });

  it("gives a headless Service's endpoints the workload's name as hostname, and the headless label", () => {
    const svc = service("web", { clusterIP: "None" });
    const [slice] = planEndpointSlices(svc, [workload("wlkd-1")], []).create;
    expect(slice?.metadata.labels?.["service.kubernetes.io/headless"]).toBe("");
    expect(slice?.endpoints?.[0]?.hostname).toBe("wlkd-1");
  });

  it("gives no hostname for a Service with a cluster IP", () => {
    const [slice] = planEndpointSlices(service("web"), [workload("wlkd-1")], []).create;
    expect(slice?.endpoints?.[0]).not.toHaveProperty("hostname");
    expect(slice?.metadata.labels).not.toHaveProperty("service.kubernetes.io/headless");
  });

  it("takes both address types for a Service without ipFamilies", () => {
    const svc = service("web", { families: [] });
    const plan = planEndpointSlices(svc, [workload("a", { ips: ["10.0.0.1", "fd00::1"] })], []);
    expect(plan.create.map((s) => s.addressType).sort()).toEqual(["IPv4", "IPv6"]);
  });

  it("marks a workload that is not ready as neither ready nor serving, never terminating", () => {
    const plan = planEndpointSlices(
      service("web"),
      [workload("up"), workload("down", { ips: ["10.0.0.2"], ready: false })],
      [],
    );
    const conditions = Object.fromEntries(
      (plan.create[0]?.endpoints ?? []).map((e) => [e.targetRef?.name, e.conditions]),
    );
    expect(conditions).toEqual({
      up: { ready: true, serving: true, terminating: false },
      down: { ready: false, serving: false, terminating: false },
    });
  });

  it("reads readiness from a Ready condition with status True only", () => {
    const ew = workload("a");
    ew.status = {
      conditions: [
        { type: "Healthy", status: "True" },
        { type: "Ready", status: "Unknown" },
      ],
    };
    const [slice] = planEndpointSlices(service("web"), [ew], []).create;
    expect(slice?.endpoints?.[0]?.conditions?.ready).toBe(false);
    ew.status = {};
    expect(
      planEndpointSlices(service("web"), [ew], []).create[0]?.endpoints?.[0]?.conditions?.ready,
    ).toBe(false);
  });

  it("keeps two workloads that share an IP as two endpoints", () => {
    const plan = planEndpointSlices(
      service("web"),
      [workload("ew0", { ips: ["10.0.0.1"] }), workload("ew1", { ips: ["10.0.0.1"] })],
      [],
    );
    expect(plan.create[0]?.endpoints?.map((e) => e.targetRef?.name)).toEqual(["ew0", "ew1"]);
  });

  it("puts only the IPs of the slice's address type into an endpoint, sorted", () => {
    const svc = service("web", { families: ["IPv6"] });
    const plan = planEndpointSlices(
      svc,
      [
        workload("ew0", { ips: ["10.0.0.1"] }),
        workload("ew1", { ips: ["10.0.0.2", "fd08::5678:0000:0000:9abc:def0"] }),
      ],
      [],
    );
    expect(plan.create).toHaveLength(1);
    expect(plan.create[0]?.endpoints?.map((e) => e.addresses)).toEqual([
      ["fd08::5678:0000:0000:9abc:def0"],
    ]);
  });

  it("creates nothing for workloads without IPs, or only of another address type", () => {
    const svc = service("web", { families: ["IPv6"] });
    expect(counts(planEndpointSlices(svc, [workload("a", { ips: [] })], []))).toEqual({
      create: 0,
      update: 0,
      delete: 0,
    });
    expect(counts(planEndpointSlices(svc, [workload("a", { ips: ["10.0.0.1"] })], []))).toEqual({
      create: 0,
      update: 0,
      delete: 0,
    });
  });

  it("copies the workload's zone label into the endpoint", () => {
    const ew = workload("a", { labels: { app: "test", "topology.kubernetes.io/zone": "zone-1" } });
    expect(planEndpointSlices(service("web"), [ew], []).create[0]?.endpoints?.[0]?.zone).toBe(
      "zone-1",
    );
  });
});

describe("planEndpointSlices: ports", () => {
  it("resolves a named target port against each workload's ports, one slice per resulting port set", () => {
    const svc = service("web", { ports: [HTTP_NAMED] });
    const ews = manyWorkloads(300, (i) => ({ port: 8080 + (i % 5), name: "http" }));
    const plan = planEndpointSlices(svc, ews, []);
    expect(plan.create).toHaveLength(5);
    expect(lengths(plan.create)).toEqual([60, 60, 60, 60, 60]);
    expect(
      plan.create.map((s) => s.ports).sort((a, b) => (a?.[0]?.port ?? 0) - (b?.[0]?.port ?? 0)),
    ).toEqual([8080, 8081, 8082, 8083, 8084].map((port) => [{ port, protocol: "TCP" }]));
  });

  it("maps every Service port the workload declares, with the Service port's name and protocol", () => {
    const svc = service("web", {
      ports: [
        { name: "tcp-example", port: 80, targetPort: 80, protocol: "TCP" },
        { name: "udp-example", port: 161, targetPort: 161, protocol: "UDP" },
        { name: "sctp-example", port: 3456, targetPort: 3456, protocol: "SCTP" },
      ],
    });
    const ew = workload("ew0", {
      ports: [
        { name: "tcp-example", port: 80, protocol: "TCP" },
        { name: "udp-example", port: 161, protocol: "UDP" },
        { name: "sctp-example", port: 3456, protocol: "SCTP" },
      ],
    });
    expect(planEndpointSlices(svc, [ew], []).create[0]?.ports).toEqual([
      { name: "tcp-example", port: 80, protocol: "TCP" },
      { name: "udp-example", port: 161, protocol: "UDP" },
      { name: "sctp-example", port: 3456, protocol: "SCTP" },
    ]);
  });

  it("leaves out a Service port the workload does not declare (number, name or protocol), and says which", () => {
    const svc = service("web", {
      ports: [
        { name: "a", port: 1, targetPort: 9001, protocol: "TCP" },
        { name: "b", port: 2, targetPort: "admin", protocol: "TCP" },
        { name: "c", port: 3, targetPort: 9003, protocol: "UDP" },
      ],
    });
    const ew = workload("ew0", {
      ports: [{ port: 9001 }, { port: 9002, name: "metrics" }, { port: 9003 }],
    });
    const plan = planEndpointSlices(svc, [ew], []);
    expect(plan.create[0]?.ports).toEqual([{ name: "a", port: 9001, protocol: "TCP" }]);
    expect(plan.undeclaredPorts.map((u) => [u.workload, u.port.name])).toEqual([
      ["ns/ew0", "b"],
      ["ns/ew0", "c"],
    ]);
  });

  it("still writes a workload none of whose ports match, in a slice without ports", () => {
    const plan = planEndpointSlices(service("web"), [workload("a", { ports: [{ port: 1 }] })], []);
    expect(plan.create[0]?.ports).toEqual([]);
    expect(plan.create[0]?.endpoints).toHaveLength(1);
  });

  it("gives a headless Service without ports slices without ports", () => {
    const svc = service("web", { clusterIP: "None", ports: [] });
    const plan = planEndpointSlices(svc, [workload("a")], []);
    expect(plan.create[0]?.ports).toEqual([]);
    expect(plan.undeclaredPorts).toEqual([]);
  });

  it("moves every endpoint when the target port changes, reusing the slices' names (updates only)", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    const first = applyPlan([], planEndpointSlices(svc, ews, []));
    const moved = manyWorkloads(250, () => ({ port: 81 }));
    const svc81 = service("web", { ports: [{ port: 8080, targetPort: 81, protocol: "TCP" }] });
    const plan = planEndpointSlices(svc81, moved, frozen(first));
    expect(counts(plan)).toEqual({ create: 0, update: 3, delete: 0 });
    const after = applyPlan(first, plan);
    expect(lengths(after)).toEqual([100, 100, 50]);
    expect(after.every((s) => s.ports?.[0]?.port === 81)).toBe(true);
  });

  it("repacks ten slices of 30 into three of 100 when the port changes", () => {
    const svc = service("web");
    const ews = manyWorkloads(300);
    const existing = Array.from({ length: 10 }, (_, n) =>
      existingSlice(svc, "IPv4", endpointsOf(svc, ews.slice(n * 30, n * 30 + 30))),
    );
    const moved = manyWorkloads(300, () => ({ port: 81 }));
    const svc81 = service("web", { ports: [{ port: 8080, targetPort: 81, protocol: "TCP" }] });
    const plan = planEndpointSlices(svc81, moved, frozen(existing));
    expect(counts(plan)).toEqual({ create: 0, update: 3, delete: 7 });
    expect(lengths(applyPlan(existing, plan))).toEqual([100, 100, 100]);
  });
});

describe("planEndpointSlices: packing", () => {
  it("creates 100, 100 and 50 for 250 workloads", () => {
    const plan = planEndpointSlices(service("web"), manyWorkloads(250), []);
    expect(counts(plan)).toEqual({ create: 3, update: 0, delete: 0 });
    expect(lengths(plan.create)).toEqual([100, 100, 50]);
  });

  it("fills slices that are written anyway first, fullest first, then creates", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    // Stored endpoints that differ from what is wanted (marked terminating), so both are rewritten.
    const stale = (indexes: number[]) =>
      endpointsOf(
        svc,
        ews.filter((_, i) => indexes.includes(i)),
      ).map((e) => ({
        ...e,
        conditions: { ...e.conditions, terminating: true },
      }));
    const quarter = (start: number) =>
      Array.from({ length: 250 }, (_, i) => i).filter(
        (i) => i >= start && i < 246 && (i - start) % 4 === 0,
      );
    const es1 = existingSlice(svc, "IPv4", stale(quarter(1)));
    const es2 = existingSlice(svc, "IPv4", stale(quarter(3)));
    expect([es1.endpoints?.length, es2.endpoints?.length]).toEqual([62, 61]);
    const plan = planEndpointSlices(svc, ews, frozen([es1, es2]));
    expect(counts(plan)).toEqual({ create: 1, update: 2, delete: 0 });
    expect(lengths(applyPlan([es1, es2], plan))).toEqual([100, 100, 50]);
  });

  it("puts what is left into the unchanged slice it fills closest to full", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    const pick = (start: number) =>
      ews.filter((_, i) => i >= start && i < 246 && (i - start) % 4 === 0);
    const es1 = existingSlice(svc, "IPv4", endpointsOf(svc, pick(1)));
    const es2 = existingSlice(svc, "IPv4", endpointsOf(svc, pick(3)));
    const plan = planEndpointSlices(svc, ews, frozen([es1, es2]));
    // 127 new endpoints: a new slice of 100, then 27 into the 62 of es1 (89 is closest to 100).
    expect(counts(plan)).toEqual({ create: 1, update: 1, delete: 0 });
    expect(plan.update[0]?.metadata.name).toBe(es1.metadata.name);
    expect(lengths(applyPlan([es1, es2], plan))).toEqual([100, 89, 61]);
  });

  it("honours a smaller slice size", () => {
    const plan = planEndpointSlices(service("web"), manyWorkloads(25), [], {
      maxEndpointsPerSlice: 10,
    });
    expect(lengths(plan.create)).toEqual([10, 10, 5]);
  });

  it("writes nothing when the stored slices are what is wanted", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    const stored = applyPlan([], planEndpointSlices(svc, ews, []));
    expect(counts(planEndpointSlices(svc, ews, frozen(stored)))).toEqual({
      create: 0,
      update: 0,
      delete: 0,
    });
  });
});

describe("planEndpointSlices: changes", () => {
  it("adds new workloads to the existing slice of each address type", () => {
    const svc = service("web", { families: ["IPv4", "IPv6"] });
    const created = workload("wlkd-1", { ips: ["192.0.2.1", "2001:db8::8a2e:370:7333"] });
    const es4 = existingSlice(svc, "IPv4", endpointsOf(svc, [created], "IPv4"));
    const es6 = existingSlice(svc, "IPv6", endpointsOf(svc, [created], "IPv6"));
    const v4 = workload("wlkd-2", { ips: ["192.0.2.0"] });
    const v6 = workload("wlkd-3", { ips: ["2001:db8::8a2e:370:7334"] });
    const plan = planEndpointSlices(svc, [created, v4, v6], frozen([es4, es6]));
    expect(counts(plan)).toEqual({ create: 0, update: 2, delete: 0 });
    const byType = Object.fromEntries(
      plan.update.map((s) => [s.addressType, s.endpoints?.map((e) => e.targetRef?.name).sort()]),
    );
    expect(byType).toEqual({ IPv4: ["wlkd-1", "wlkd-2"], IPv6: ["wlkd-1", "wlkd-3"] });
  });

  it("updates an endpoint in place when the workload's zone changes", () => {
    const svc = service("web");
    const ew = workload("wlkd-1");
    const es = existingSlice(svc, "IPv4", endpointsOf(svc, [ew]));
    const zoned = workload("wlkd-1", { labels: { "topology.kubernetes.io/zone": "zone1" } });
    const plan = planEndpointSlices(svc, [zoned, zoned], frozen([es]));
    expect(counts(plan)).toEqual({ create: 0, update: 1, delete: 0 });
    expect(plan.update[0]?.metadata.name).toBe(es.metadata.name);
    expect(plan.update[0]?.endpoints).toHaveLength(1);
    expect(plan.update[0]?.endpoints?.[0]?.zone).toBe("zone1");
  });

  it("updates readiness when a workload stops being ready", () => {
    const svc = service("web");
    const es = existingSlice(svc, "IPv4", endpointsOf(svc, [workload("a")]));
    const plan = planEndpointSlices(svc, [workload("a", { ready: false })], frozen([es]));
    expect(plan.update[0]?.endpoints?.[0]?.conditions).toEqual({
      ready: false,
      serving: false,
      terminating: false,
    });
  });

  it("replaces an endpoint whose address changed", () => {
    const svc = service("web");
    const es = existingSlice(svc, "IPv4", endpointsOf(svc, [workload("a", { ips: ["10.0.0.1"] })]));
    const plan = planEndpointSlices(svc, [workload("a", { ips: ["10.0.0.9"] })], frozen([es]));
    expect(counts(plan)).toEqual({ create: 0, update: 1, delete: 0 });
    expect(plan.update[0]?.endpoints?.map((e) => e.addresses)).toEqual([["10.0.0.9"]]);
  });

  it("deletes a slice left without endpoints", () => {
    const svc = service("web");
    const es = existingSlice(svc, "IPv4", endpointsOf(svc, [workload("a")]));
    const plan = planEndpointSlices(svc, [], frozen([es]));
    expect(plan.delete.map((s) => s.metadata.name)).toEqual([es.metadata.name]);
    expect(plan.create).toEqual([]);
  });

  it("deletes the slices of an address type the Service no longer has", () => {
    const svc = service("web", { families: ["IPv4"] });
    const ew = workload("a", { ips: ["10.0.0.1", "fd00::1"] });
    const es4 = existingSlice(svc, "IPv4", endpointsOf(svc, [ew], "IPv4"));
    const es6 = existingSlice(svc, "IPv6", endpointsOf(svc, [ew], "IPv6"));
    const plan = planEndpointSlices(svc, [ew], frozen([es4, es6]));
    expect(counts(plan)).toEqual({ create: 0, update: 0, delete: 1 });
    expect(plan.delete[0]?.metadata.name).toBe(es6.metadata.name);
  });

  it("deletes a slice owned by another Service of the same name, and never reuses its name", () => {
    const svc = service("web");
    const old = existingSlice(svc, "IPv4", endpointsOf(svc, [workload("a")]));
    const recreated = { ...svc, metadata: { ...svc.metadata, uid: "uid-web-2" } };
    const plan = planEndpointSlices(recreated, [workload("a")], frozen([old]));
    expect(counts(plan)).toEqual({ create: 1, update: 0, delete: 1 });
    expect(plan.create[0]?.metadata.ownerReferences[0]?.uid).toBe("uid-web-2");
  });

  it("copies new Service labels onto every slice", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    const stored = applyPlan([], planEndpointSlices(svc, ews, []));
    const relabelled = service("web", { labels: { foo: "bar" } });
    const plan = planEndpointSlices(relabelled, ews, frozen(stored));
    expect(counts(plan)).toEqual({ create: 0, update: 3, delete: 0 });
    expect(plan.update.every((s) => s.metadata.labels?.foo === "bar")).toBe(true);
    expect(lengths(plan.update)).toEqual([100, 100, 50]);
  });

  it("never copies a Service's reserved labels, and writes nothing for them", () => {
    const svc = service("web");
    const ews = manyWorkloads(250);
    const stored = applyPlan([], planEndpointSlices(svc, ews, []));
    const reserved = service("web", {
      labels: {
        "kubernetes.io/service-name": "bad",
        "endpointslice.kubernetes.io/managed-by": "actor",
        "service.kubernetes.io/headless": "invalid",
      },
    });
    expect(counts(planEndpointSlices(reserved, ews, frozen(stored)))).toEqual({
      create: 0,
      update: 0,
      delete: 0,
    });
    const [slice] = planEndpointSlices(reserved, ews, []).create;
    expect(slice?.metadata.labels).toEqual({
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
    });
  });

  it("does not rewrite a slice only because the Service dropped a label (as upstream)", () => {
    const labelled = service("web", { labels: { foo: "bar" } });
    const stored = applyPlan([], planEndpointSlices(labelled, [workload("a")], []));
    expect(counts(planEndpointSlices(service("web"), [workload("a")], frozen(stored)))).toEqual({
      create: 0,
      update: 0,
      delete: 0,
    });
  });

  it("drops a duplicate of an endpoint within a slice", () => {
    const svc = service("web");
    const endpoints = endpointsOf(svc, [workload("a"), workload("a")]);
    const es = existingSlice(svc, "IPv4", endpoints);
    const plan = planEndpointSlices(svc, [workload("a")], frozen([es]));
    expect(plan.update[0]?.endpoints).toHaveLength(1);
  });

  it("creates for a second port set and deletes the old one's slice by reusing its name", () => {
    const svc = service("web");
    const es = existingSlice(svc, "IPv4", endpointsOf(svc, [workload("a")]));
    const moved = workload("a", { ports: [{ port: 8080 }, { port: 9090 }] });
    const svc2 = service("web", {
      ports: [
        { name: "http", port: 8080, targetPort: 8080, protocol: "TCP" },
        { name: "admin", port: 9090, targetPort: 9090, protocol: "TCP" },
      ],
    });
    const plan = planEndpointSlices(svc2, [moved], frozen([es]));
    expect(counts(plan)).toEqual({ create: 0, update: 1, delete: 0 });
    expect(plan.update[0]?.metadata.name).toBe(es.metadata.name);
    expect(plan.update[0]?.ports).toHaveLength(2);
    expect(plan.update[0]?.metadata).not.toHaveProperty("generateName");
  });
});

describe("planEndpointSlices: inputs", () => {
  it("changes nothing it is given", () => {
    const svc = frozen(service("web"));
    const ews = frozen(manyWorkloads(120));
    const stored: EndpointSlice[] = frozen([
      existingSlice(svc, "IPv4", endpointsOf(svc, ews.slice(0, 50))),
    ]);
    expect(() => planEndpointSlices(svc, ews, stored)).not.toThrow();
  });
});
