import { systemClock } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import {
  type AuditSource,
  MemoryCluster,
  RESOURCE_KINDS,
  type ResourceKind,
} from "@destination/k8s-discovery";
import { WorkloadWatcher } from "@destination/pod-watcher";
import { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import { create, tcpAddressFromString, UpdateSchema } from "@destination/proto";
import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  server,
  service,
  slice,
} from "@destination/test-support/builders";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import {
  EndpointTranslation,
  EndpointTranslator,
  type EndpointTranslatorConfig,
} from "@destination/translators";
import { describe, expect, it } from "vitest";
import { createServerLogger } from "../logging/server-logger.js";
import { AUDIT_METRIC_NAMES, auditMetrics } from "./audit-metrics.js";
import { GetSubscriptions, ProfileSubscriptions, witnessedSink } from "./held-subscriptions.js";
import { cacheOf } from "./object-differences.js";
import { StreamAudit } from "./stream-audit.js";

const WEB = { app: "web" };
const KINDS = Object.keys(RESOURCE_KINDS) as ResourceKind[];
const WEB_SUBSCRIPTION = {
  service: { namespace: "shop", name: "web" },
  port: 8080,
  key: { hostname: "", nodeName: "node-a", enableEndpointFiltering: true },
  zone: "",
  authority: "web.shop.svc.cluster.local:8080",
};
const TRANSLATOR_CONFIG: EndpointTranslatorConfig = {
  controllerNamespace: "linkerd",
  identityTrustDomain: "cluster.local",
  enableH2Upgrade: true,
  forceOpaqueTransport: false,
  extEndpointZoneWeights: false,
  defaultOpaquePorts: new Set(),
};

/**
 * `truth` is the API server; `live` the server's caches, which hear of truth's objects only when
 * `sync` or a healing relist copies them over. `relistHeals: false` is a relist that changes
 * nothing: a divergence that survives it is a bug.
 */
function setup(relistHeals = true, listsFail = false, settleMs = 0, sliceMs?: number) {
  const truth = new MemoryCluster();
  const live = new MemoryCluster({ keepVersions: true });
  const watchers = {
    endpoints: new EndpointsWatcher(live, { enableEndpointSlices: true, enableIPv6: true }),
    profiles: new ProfileWatcher(live),
    opaquePorts: new OpaquePortsWatcher(live, { defaultOpaquePorts: new Set() }),
    workloads: new WorkloadWatcher(live, {
      defaultOpaquePorts: new Set(),
      enableEndpointSlices: true,
    }),
  };
  const sync = (kinds: Iterable<ResourceKind> = KINDS) => {
    for (const kind of kinds) live.replace(kind, cacheOf(truth, kind).list());
  };
  const relisted: ResourceKind[][] = [];
  const source: AuditSource = {
    listFresh: async (kind) => {
      if (listsFail) throw new Error("connection refused");
      return [...cacheOf(truth, kind).list()];
    },
    relist: async (kinds) => {
      relisted.push([...kinds]);
      if (relistHeals) sync(kinds);
    },
  };
  const subscriptions = new GetSubscriptions();
  const profileSubscriptions = new ProfileSubscriptions();
  const metrics = new InMemoryMetrics();
  const logs: Record<string, unknown>[] = [];
  const audit = new StreamAudit({
    cluster: live,
    source,
    live: watchers,
    getSubscriptions: subscriptions,
    profileSubscriptions,
    defaultOpaquePorts: new Set(),
    translatorConfig: TRANSLATOR_CONFIG,
    enableEndpointSlices: true,
    enableIPv6: true,
    metrics: auditMetrics(metrics),
    logger: createServerLogger({
      level: "debug",
      format: "json",
      sink: { write: (line) => void logs.push(JSON.parse(line)) },
    }),
    clock: systemClock,
    settleMs,
    ...(sliceMs === undefined ? {} : { sliceMs }),
  });
  for (const obj of [
    ...clusterBasics(),
    service("web", { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] }),
    pod("web-1", {
      ...CLUSTER_POD,
      namespace: "shop",
      ip: "10.0.0.1",
      labels: WEB,
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
    pod("web-2", {
      ...CLUSTER_POD,
      namespace: "shop",
      ip: "10.0.0.2",
      labels: WEB,
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
    slice("web-abc", "web", [podEndpoint("web-1", "10.0.0.1", { namespace: "shop" })], {
      namespace: "shop",
      ports: [{ port: 8080, protocol: "TCP" }],
    }),
    // Opacity from a Server is part of what both sides must agree on.
    server("web-opaque", { namespace: "shop", podSelector: WEB, port: 8080 }),
  ]) {
    truth.apply(obj);
  }
  void live.start();
  sync();
  const subscribe = () => subscriptions.add(WEB_SUBSCRIPTION);
  /** A stream as the Get handler opens one: held, translated, its witness folding when it is one. */
  const openStream = () => {
    const held = subscriptions.hold(WEB_SUBSCRIPTION);
    const sink = { send: () => true };
    const translator = new EndpointTranslator(
      new EndpointTranslation(TRANSLATOR_CONFIG).forZone(""),
      held.witness === undefined ? sink : witnessedSink(sink, held.witness),
    );
    const { service, port, key } = WEB_SUBSCRIPTION;
    watchers.endpoints.subscribe(service, port, key, translator);
    return held;
  };
  const metric = (name: string, labels: Record<string, string> = {}) => metrics.value(name, labels);
  const at = (level: string) => logs.filter((l) => l.level === level);
  return {
    truth,
    live,
    audit,
    relisted,
    subscribe,
    openStream,
    profileSubscriptions,
    metric,
    at,
    sync,
  };
}

const twoEndpoints = () =>
  slice(
    "web-abc",
    "web",
    [
      podEndpoint("web-1", "10.0.0.1", { namespace: "shop" }),
      podEndpoint("web-2", "10.0.0.2", { namespace: "shop" }),
    ],
    { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] },
  );

describe("StreamAudit", () => {
  it("gives the event loop turns while a run lasts, so streams are served meanwhile", async () => {
    const { audit, subscribe } = setup(true, false, 0, 0);
    subscribe();
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      expect((await audit.run()).result).toBe("clean");
    } finally {
      clearInterval(ticking);
    }
    // Every list and subscription here resolves without I/O: only the run's own pauses let
    // the timer in.
    expect(turns).toBeGreaterThan(0);
  });

  it("lists nothing when no stream is open", async () => {
    const { audit, relisted } = setup();
    expect((await audit.run()).result).toBe("clean");
    expect(relisted).toEqual([]);
  });

  it("finds nothing when the caches hold what the API server says", async () => {
    const { audit, subscribe, metric, at } = setup();
    subscribe();
    subscribe();
    const report = await audit.run();
    expect(report).toMatchObject({ result: "clean", streams: 2, divergent: [] });
    expect(metric(AUDIT_METRIC_NAMES.streamsChecked)).toBe(2);
    expect(metric(AUDIT_METRIC_NAMES.divergentStreams)).toBe(0);
    expect(metric(AUDIT_METRIC_NAMES.runs, { result: "clean" })).toBe(1);
    expect(at("warn")).toEqual([]);
  });

  it("finds a missed endpoint, relists the kind that differs, and reports it healed", async () => {
    const { truth, audit, relisted, subscribe, metric, at } = setup();
    subscribe();
    truth.apply(twoEndpoints());
    const report = await audit.run();
    expect(report.result).toBe("healed");
    expect(report.divergent.map((d) => d.missing.map((e) => e.address))).toEqual([
      ["10.0.0.2:8080"],
    ]);
    expect(relisted).toEqual([["EndpointSlice"]]);
    // Compared as sent: the Server's opacity is in what the stream should hold.
    const expected = report.divergent[0]?.missing[0]?.expected?.addr;
    expect(expected?.protocolHint?.protocol.case).toBe("opaque");
    expect(metric(AUDIT_METRIC_NAMES.divergentEndpoints, { kind: "missing" })).toBe(1);
    expect(metric(AUDIT_METRIC_NAMES.divergentStreams)).toBe(1);
    expect(metric(AUDIT_METRIC_NAMES.runs, { result: "healed" })).toBe(1);
    expect(at("warn")).toHaveLength(1);
    expect(at("error")).toEqual([]);
  });

  it("finds extra and changed endpoints", async () => {
    const { truth, audit, subscribe, metric } = setup();
    subscribe();
    truth.apply(twoEndpoints());
    // A stream that already holds both, then web-2 goes and web-1 changes identity.
    const report0 = await audit.run();
    expect(report0.result).toBe("healed");
    truth.apply(
      slice("web-abc", "web", [podEndpoint("web-1", "10.0.0.1", { namespace: "shop" })], {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    truth.apply(
      pod("web-1", {
        ...CLUSTER_POD,
        namespace: "shop",
        ip: "10.0.0.1",
        labels: WEB,
        serviceAccountName: "payments",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    const report = await audit.run();
    expect(report.divergent.map((d) => d.extra.map((e) => e.address))).toEqual([["10.0.0.2:8080"]]);
    expect(report.divergent.map((d) => d.changed.map((e) => e.address))).toEqual([
      ["10.0.0.1:8080"],
    ]);
    expect(metric(AUDIT_METRIC_NAMES.divergentEndpoints, { kind: "extra" })).toBe(1);
    expect(metric(AUDIT_METRIC_NAMES.divergentEndpoints, { kind: "changed" })).toBe(1);
    expect([...report.relisted].sort()).toEqual(["EndpointSlice", "Pod"]);
    expect(report.result).toBe("healed");
  });

  it("logs a divergence a relist does not heal as a bug, with names and resourceVersions", async () => {
    const { truth, audit, subscribe, metric, at } = setup(false);
    subscribe();
    truth.apply(twoEndpoints());
    const report = await audit.run();
    expect(report.result).toBe("unhealed");
    expect(metric(AUDIT_METRIC_NAMES.runs, { result: "unhealed" })).toBe(1);
    const errors = at("error");
    expect(errors).toHaveLength(1);
    const version = truth.endpointSlices.get("shop", "web-abc")?.metadata.resourceVersion;
    expect(errors[0]).toMatchObject({
      authority: "web.shop.svc.cluster.local:8080",
      differedBeforeRelist: [
        expect.objectContaining({ kind: "EndpointSlice", name: "web-abc", listed: version }),
      ],
    });
    expect(errors[0]?.objects).toContain(`EndpointSlice shop/web-abc@${version}`);
  });

  it("counts a run whose lists fail as failed, without throwing", async () => {
    const { audit, subscribe, metric, at } = setup(true, true);
    subscribe();
    expect((await audit.run()).result).toBe("failed");
    expect(metric(AUDIT_METRIC_NAMES.runs, { result: "failed" })).toBe(1);
    expect(at("warn").map((l) => l.msg)).toEqual([
      "self-audit run failed; the next one runs as scheduled",
    ]);
  });
  it("compares what the witness stream was sent, and sees it healed by the relist", async () => {
    const { truth, audit, openStream, relisted } = setup();
    const stream = openStream();
    openStream();
    truth.apply(twoEndpoints());
    const report = await audit.run();
    expect(report.result).toBe("healed");
    expect(report.divergent.map((d) => [d.heldBy, d.missing.map((e) => e.address)])).toEqual([
      ["stream", ["10.0.0.2:8080"]],
    ]);
    expect(relisted).toEqual([["EndpointSlice"]]);
    // The relisted cache's event reached the stream, as the recheck saw.
    expect(stream.witness?.addresses()).toEqual(["10.0.0.1:8080", "10.0.0.2:8080"]);
  });

  it("logs a stream that lost what its watcher holds as a bug: a relist cannot heal it", async () => {
    const { audit, openStream, metric, at } = setup();
    const { witness } = openStream();
    // What a translator's wrong diff would do: the stream was told web-1 went, the cache knows
    // it did not.
    witness?.apply(
      create(UpdateSchema, {
        update: { case: "remove", value: { addrs: [tcpAddressFromString("10.0.0.1:8080")] } },
      }),
    );
    const report = await audit.run();
    expect(report.result).toBe("unhealed");
    expect(report.unhealed.map((d) => [d.heldBy, d.missing.map((e) => e.address)])).toEqual([
      ["stream", ["10.0.0.1:8080"]],
    ]);
    expect(metric(AUDIT_METRIC_NAMES.runs, { result: "unhealed" })).toBe(1);
    expect(at("error")).toEqual([
      expect.objectContaining({ heldBy: "stream", authority: WEB_SUBSCRIPTION.authority }),
    ]);
  });

  it("falls back to the watcher's set when the witness stream has ended", async () => {
    const { truth, audit, openStream, subscribe } = setup();
    const witness = openStream();
    subscribe();
    witness.release();
    truth.apply(twoEndpoints());
    const report = await audit.run();
    expect(report.divergent.map((d) => d.heldBy)).toEqual(["watcher"]);
    expect(report.result).toBe("healed");
  });

  it("finds a service profile whose opaque ports went stale, and heals it", async () => {
    const { truth, audit, relisted, profileSubscriptions, metric, at } = setup();
    profileSubscriptions.add({
      flow: "service",
      service: { namespace: "shop", name: "web" },
      fqn: "web.shop.svc.cluster.local",
      port: 8080,
      tokenNamespace: "",
      authority: "web.shop.svc.cluster.local:8080",
    });
    expect((await audit.run()).result).toBe("clean");
    truth.apply(
      service("web", {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
        annotations: { "config.linkerd.io/opaque-ports": "8080" },
      }),
    );
    const report = await audit.run();
    expect(report.result).toBe("healed");
    expect(report.divergentProfiles.map((d) => d.fields)).toEqual([["opaqueProtocol"]]);
    expect(report.divergentProfiles[0]?.expected?.opaqueProtocol).toBe(true);
    expect(relisted).toEqual([["Service"]]);
    expect(metric(AUDIT_METRIC_NAMES.divergentProfiles, { flow: "service" })).toBe(1);
    expect(at("warn").map((l) => l.flow)).toEqual(["service"]);
  });

  it("finds an endpoint profile still opaque after its Server went, and heals it", async () => {
    const { truth, audit, relisted, profileSubscriptions, metric } = setup();
    profileSubscriptions.add({
      flow: "endpoint",
      target: { ip: "10.0.0.1", port: 8080 },
      authority: "10.0.0.1:8080",
    });
    expect((await audit.run()).result).toBe("clean");
    truth.delete("Server", "shop", "web-opaque");
    const report = await audit.run();
    expect(report.result).toBe("healed");
    const [d] = report.divergentProfiles;
    expect(d?.held?.opaqueProtocol).toBe(true);
    expect(d?.expected?.opaqueProtocol).toBe(false);
    expect(d?.fields).toContain("opaqueProtocol");
    expect(relisted).toEqual([["Server"]]);
    expect(metric(AUDIT_METRIC_NAMES.divergentProfiles, { flow: "endpoint" })).toBe(1);
  });
  it("does not count a divergence the caches catch up with while it settles", async () => {
    const { truth, audit, relisted, subscribe, metric, at, sync } = setup(true, false, 200);
    subscribe();
    truth.apply(twoEndpoints());
    const running = audit.run();
    // The withheld event arrives during the settle time, before the lists are read again.
    setTimeout(() => sync(["EndpointSlice"]), 50);
    const report = await running;
    expect(report.result).toBe("clean");
    expect(relisted).toEqual([]);
    expect(metric(AUDIT_METRIC_NAMES.divergentEndpoints, { kind: "missing" })).toBe(0);
    expect(at("warn")).toEqual([]);
  });

  it("counts a divergence that outlasts the settle time, against new lists", async () => {
    const { truth, audit, relisted, subscribe } = setup(true, false, 50);
    subscribe();
    truth.apply(twoEndpoints());
    const report = await audit.run();
    expect(report.result).toBe("healed");
    expect(relisted).toEqual([["EndpointSlice"]]);
  });
});
