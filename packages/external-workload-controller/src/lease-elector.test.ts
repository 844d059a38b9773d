import { type KubeApi, KubeApiError, MemoryCluster } from "@destination/k8s-discovery";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { FakeKubeApi } from "../test/support/fake-kube-api.js";
import { LeaseElector, microTime } from "./lease-elector.js";

const TIMINGS = { leaseDurationMs: 1500, renewDeadlineMs: 500, retryPeriodMs: 30 };
const PATH = "/apis/coordination.k8s.io/v1/namespaces/linkerd/leases/ewc";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function elector(api: KubeApi, identity: string, events: string[] = []) {
  const created = new LeaseElector({
    api,
    namespace: "linkerd",
    name: "ewc",
    identity,
    ...TIMINGS,
    onStartedLeading: () => events.push("started"),
    onStoppedLeading: () => events.push("stopped"),
    onNewLeader: (holder) => events.push(`leader ${holder}`),
  });
  stops.push(() => created.stop());
  return created;
}

/** A client of the fake server that fails every request while `down` is set. */
function flaky(api: KubeApi) {
  const state = { down: false };
  const client: KubeApi = {
    json: (request) =>
      state.down
        ? Promise.reject(new KubeApiError(503, { code: 503, message: "unavailable" }, request.path))
        : api.json(request),
  };
  return { client, state };
}

describe("LeaseElector", () => {
  it("creates the Lease with client-go's record when there is none", async () => {
    const api = new FakeKubeApi(new MemoryCluster());
    const events: string[] = [];
    const a = elector(api.client("a"), "pod-a", events);
    a.start();
    await eventually(() => expect(a.isLeading).toBe(true));
    const lease = api.objects.get(PATH);
    expect(lease).toMatchObject({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "ewc", namespace: "linkerd" },
      spec: { holderIdentity: "pod-a", leaseDurationSeconds: 2, leaseTransitions: 0 },
    });
    expect(events.slice(0, 2)).toEqual(["leader pod-a", "started"]);
  });

  it("gives leadership up when it cannot renew within the renew deadline, and takes it back later", async () => {
    const api = new FakeKubeApi(new MemoryCluster());
    const { client, state } = flaky(api.client("a"));
    const events: string[] = [];
    const a = elector(client, "pod-a", events);
    a.start();
    await eventually(() => expect(a.isLeading).toBe(true));
    state.down = true;
    const downAt = Date.now();
    await eventually(() => expect(a.isLeading).toBe(false));
    const lostAfter = Date.now() - downAt;
    expect(lostAfter).toBeGreaterThanOrEqual(TIMINGS.renewDeadlineMs - TIMINGS.retryPeriodMs);
    expect(lostAfter).toBeLessThan(TIMINGS.leaseDurationMs);
    expect(events).toContain("stopped");
    state.down = false;
    // Still the holder on record, so it renews its own Lease at once.
    await eventually(() => expect(a.isLeading).toBe(true));
  });

  it("never takes a Lease another replica keeps renewing", async () => {
    const api = new FakeKubeApi(new MemoryCluster());
    const a = elector(api.client("a"), "pod-a");
    a.start();
    await eventually(() => expect(a.isLeading).toBe(true));
    const b = elector(api.client("b"), "pod-b");
    b.start();
    await new Promise((r) => setTimeout(r, TIMINGS.leaseDurationMs * 1.5));
    expect([a.isLeading, b.isLeading]).toEqual([true, false]);
    expect(api.writes.filter((w) => w.client === "b" && w.method === "PUT")).toEqual([]);
  });

  it("releases the Lease on stop, and leaves it to expire when told not to", async () => {
    const api = new FakeKubeApi(new MemoryCluster());
    const a = elector(api.client("a"), "pod-a");
    a.start();
    await eventually(() => expect(a.isLeading).toBe(true));
    await a.stop();
    expect(api.objects.get(PATH)).toMatchObject({
      spec: { holderIdentity: "", leaseDurationSeconds: 1 },
    });

    const b = elector(api.client("b"), "pod-b");
    b.start();
    await eventually(() => expect(b.isLeading).toBe(true));
    await b.stop({ release: false });
    expect(api.objects.get(PATH)).toMatchObject({ spec: { holderIdentity: "pod-b" } });
  });
});

describe("microTime", () => {
  it("writes Kubernetes' MicroTime: six fractional digits, UTC", () => {
    expect(microTime(Date.UTC(2026, 11, 7, 8, 0, 5, 123))).toBe("2026-12-07T08:00:05.123000Z");
  });
});
