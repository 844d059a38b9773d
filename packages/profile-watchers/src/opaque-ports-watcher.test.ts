import {
  InvalidServiceError,
  type Logger,
  OPAQUE_PORTS_ANNOTATION,
  type OpaquePortsListener,
  type Service,
} from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { OpaquePortsWatcher } from "./opaque-ports-watcher.js";

const NS = "emojivoto";
const ID = { namespace: NS, name: "web" };
const LABELS = { namespace: NS, name: "web" };
const DEFAULTS = new Set([25, 3306]);

/** The `web` Service; `annotation` undefined means no opaque-ports annotation at all. */
function service(annotation?: string, extra: Partial<Service> = {}, name = "web"): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: NS,
      ...(annotation === undefined
        ? {}
        : { annotations: { [OPAQUE_PORTS_ANNOTATION]: annotation } }),
    },
    spec: {
      type: "ClusterIP",
      ports: [
        { name: "http", port: 80, targetPort: 8080 },
        { name: "db", port: 5432, targetPort: 15432 },
      ],
    },
    ...extra,
  };
}

/** A listener recording each set it is told, sorted. */
function recorder(): OpaquePortsListener & { sets: number[][] } {
  const sets: number[][] = [];
  return { sets, updateService: (ports) => void sets.push([...ports].sort((a, b) => a - b)) };
}

/** A logger whose calls can be asserted. */
function spyLogger() {
  type Log = Logger["error"];
  return { debug: vi.fn<Log>(), info: vi.fn<Log>(), warn: vi.fn<Log>(), error: vi.fn<Log>() };
}

function setup() {
  const cluster = new MemoryCluster();
  const metrics = new InMemoryMetrics();
  const logger = spyLogger();
  const watcher = new OpaquePortsWatcher(cluster, {
    defaultOpaquePorts: DEFAULTS,
    metrics,
    logger,
  });
  return { cluster, metrics, logger, watcher };
}

describe("OpaquePortsWatcher", () => {
  it("a subscriber hears a new set only when the set itself changes", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service());
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.apply(service("5432,80"));
    cluster.apply(service("80, 5432,")); // same set: other order, spacing, trailing comma
    cluster.apply(service("http,db")); // same set through port names
    cluster.resync();
    cluster.apply(service("80"));
    cluster.apply(service("")); // present but empty: nothing is opaque
    cluster.apply(service()); // absent: the defaults
    cluster.apply(service("25,3306")); // equal to the defaults
    expect(listener.sets).toEqual([[25, 3306], [80, 5432], [80], [], [25, 3306]]);
  });

  it("a change reaches every listener of that Service and no other", () => {
    const { cluster, watcher } = setup();
    const first = recorder();
    const second = recorder();
    const other = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(ID, second);
    watcher.subscribe({ namespace: NS, name: "api" }, other);
    cluster.apply(service("9000", {}, "web"));
    cluster.apply(service("9000", {}, "web"));
    expect(first.sets).toEqual([[25, 3306], [9000]]);
    expect(second.sets).toEqual([[25, 3306], [9000]]);
    expect(other.sets).toEqual([[25, 3306]]);
  });

  it("a Service too malformed to read is skipped where it enters the cluster, and its event ignored", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    const broken = service("db", { spec: { ports: "db" as never } });
    cluster.apply(broken);
    expect(listener.sets).toEqual([[9000]]);
    expect(cluster.services.stats().invalid).toBe(1);
    cluster.apply(service("9001"));
    expect(listener.sets).toEqual([[9000], [9001]]);
  });

  it("listeners hear exactly the changes of the computed set, for any event sequence", () => {
    // Each annotation with the set it means, given the Service's ports `http`=80 and `db`=5432.
    const meaning = new Map<string | undefined, number[]>([
      [undefined, [25, 3306]],
      ["", []],
      ["80", [80]],
      ["80,5432", [80, 5432]],
      ["5432,80", [80, 5432]],
      ["http,db", [80, 5432]],
      ["25,3306", [25, 3306]],
      ["1-3", [1, 2, 3]],
    ]);
    const step = fc.oneof(
      fc.constantFrom(...meaning.keys()).map((annotation) => ({ annotation })),
      fc.constant("delete" as const),
      fc.constant("resync" as const),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const { cluster, watcher } = setup();
        const listener = recorder();
        watcher.subscribe(ID, listener);
        const expected = [[25, 3306]];
        const settle = (ports: number[] | undefined) => {
          const last = expected[expected.length - 1];
          if (ports !== undefined && ports.join() !== last?.join()) expected.push(ports);
        };
        for (const s of steps) {
          if (s === "resync") {
            cluster.resync();
          } else if (s === "delete") {
            cluster.delete("Service", NS, "web");
            settle([25, 3306]);
          } else {
            cluster.apply(service(s.annotation));
            settle(meaning.get(s.annotation));
          }
        }
        expect(listener.sets).toEqual(expected);
      }),
    );
  });

  it("deleting a Service reverts its listeners to the defaults", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.delete("Service", NS, "web");
    expect(listener.sets).toEqual([[9000], [25, 3306]]);
  });

  it("deleting a Service whose set already is the defaults tells nobody", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service());
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.delete("Service", NS, "web");
    expect(listener.sets).toEqual([[25, 3306]]);
  });

  it("the entry outlives the delete: the same listener hears the re-created Service", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.delete("Service", NS, "web");
    cluster.apply(service("9000"));
    expect(listener.sets).toEqual([[9000], [25, 3306], [9000]]);
  });

  it("subscribing to an ExternalName Service throws InvalidServiceError, registering nothing", () => {
    const { cluster, watcher, metrics } = setup();
    cluster.apply(service("9000", { spec: { type: "ExternalName", externalName: "example.com" } }));
    const listener = recorder();
    let thrown: unknown;
    try {
      watcher.subscribe(ID, listener);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidServiceError);
    expect(thrown).toMatchObject({ namespace: NS, service: "web" });
    expect(metrics.value("service_subscribers", LABELS)).toBeUndefined();
    cluster.apply(service("9001"));
    expect(listener.sets).toEqual([]);
  });

  it("a new subscriber is told the Service's current set at once", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    cluster.apply(service("db"));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.sets).toEqual([[5432]]);
  });

  it("a Service the watcher never saw an event for is read from the cache", () => {
    const cluster = new MemoryCluster();
    cluster.apply(service("9000"));
    const watcher = new OpaquePortsWatcher(cluster, { defaultOpaquePorts: DEFAULTS });
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.sets).toEqual([[9000]]);
  });

  it("a subscriber to a Service not in the cache gets the defaults, then its set", () => {
    const { cluster, watcher } = setup();
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.apply(service("9000"));
    expect(listener.sets).toEqual([[25, 3306], [9000]]);
  });

  it("a subscriber after the last one left still gets the current opaque ports", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    cluster.apply(service(undefined, {}, "plain"));
    const plainId = { namespace: NS, name: "plain" };
    const first = recorder();
    const firstPlain = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(plainId, firstPlain);
    watcher.unsubscribe(ID, first);
    watcher.unsubscribe(plainId, firstPlain);
    // Upstream re-creates the entry with the defaults and tells this subscriber nothing.
    const annotated = recorder();
    const plain = recorder();
    watcher.subscribe(ID, annotated);
    watcher.subscribe(plainId, plain);
    expect(annotated.sets).toEqual([[9000]]);
    expect(plain.sets).toEqual([[25, 3306]]);
    // A change the stored set would have hidden upstream: back to the defaults.
    cluster.apply(service());
    expect(annotated.sets).toEqual([[9000], [25, 3306]]);
  });

  it("service_subscribers counts listeners and its series is deleted at zero", () => {
    const { cluster, watcher, metrics } = setup();
    cluster.apply(service());
    const first = recorder();
    const second = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(ID, second);
    expect(metrics.value("service_subscribers", LABELS)).toBe(2);
    watcher.unsubscribe(ID, first);
    expect(metrics.value("service_subscribers", LABELS)).toBe(1);
    watcher.unsubscribe(ID, second);
    expect(metrics.value("service_subscribers", LABELS)).toBeUndefined();
    expect(metrics.series("service_subscribers").size).toBe(0);
  });

  it("only subscribed Services hold an entry, counted by opaque_ports_publishers", () => {
    const { cluster, watcher, metrics } = setup();
    for (let i = 0; i < 100; i++) cluster.apply(service("9000", {}, `svc-${i}`));
    expect(metrics.value("opaque_ports_publishers")).toBe(0);
    const listeners = Array.from({ length: 100 }, (_, i) => {
      const listener = recorder();
      watcher.subscribe({ namespace: NS, name: `svc-${i}` }, listener);
      return listener;
    });
    expect(metrics.value("opaque_ports_publishers")).toBe(100);
    for (const [i, listener] of listeners.entries()) {
      watcher.unsubscribe({ namespace: NS, name: `svc-${i}` }, listener);
    }
    expect(metrics.value("opaque_ports_publishers")).toBe(0);
    expect(metrics.series("service_subscribers").size).toBe(0);
  });

  it("an unsubscribed listener hears nothing more while the others still do", () => {
    const { cluster, watcher } = setup();
    const leaving = recorder();
    const staying = recorder();
    watcher.subscribe(ID, leaving);
    watcher.subscribe(ID, staying);
    watcher.unsubscribe(ID, leaving);
    cluster.apply(service("9000"));
    expect(leaving.sets).toEqual([[25, 3306]]);
    expect(staying.sets).toEqual([[25, 3306], [9000]]);
  });

  it("unsubscribe removes one registration of a listener subscribed twice", () => {
    const { cluster, watcher, metrics } = setup();
    const twice = recorder();
    watcher.subscribe(ID, twice);
    watcher.subscribe(ID, twice);
    watcher.unsubscribe(ID, twice);
    expect(metrics.value("service_subscribers", LABELS)).toBe(1);
    cluster.apply(service("9000"));
    expect(twice.sets).toEqual([[25, 3306], [25, 3306], [9000]]);
  });

  it("unsubscribing from an unknown Service, or a listener never subscribed, only logs", () => {
    const { watcher, logger, metrics } = setup();
    expect(() => watcher.unsubscribe(ID, recorder())).not.toThrow();
    expect(logger.error).toHaveBeenCalledWith("cannot unsubscribe from an unknown service", LABELS);
    const listener = recorder();
    watcher.subscribe(ID, listener);
    watcher.unsubscribe(ID, recorder());
    expect(logger.warn).toHaveBeenCalledWith(
      "unsubscribe of a listener that is not subscribed",
      LABELS,
    );
    expect(metrics.value("service_subscribers", LABELS)).toBe(1);
  });

  it("names resolve to the service port, ranges expand, an empty item picks an unnamed port", () => {
    const { cluster, watcher, logger } = setup();
    const ports = [
      { name: "db", port: 5432, targetPort: 15432 },
      { port: 9999, targetPort: 19999 },
    ];
    cluster.apply(service("db,7000-7002,nope,,", { spec: { ports } }));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.sets).toEqual([[5432, 7000, 7001, 7002, 9999]]);
    expect(logger.warn).toHaveBeenCalledWith(
      "invalid opaque port, skipped",
      expect.objectContaining({ item: "nope" }),
    );
  });

  it("the set a listener is handed cannot be changed", () => {
    const { cluster, watcher } = setup();
    cluster.apply(service("9000"));
    let handed: ReadonlySet<number> | undefined;
    watcher.subscribe(ID, {
      updateService: (ports) => {
        handed = ports;
      },
    });
    expect(() => (handed as Set<number>).add(1)).toThrow(TypeError);
    const later = recorder();
    watcher.subscribe(ID, later);
    expect(later.sets).toEqual([[9000]]);
  });

  it("a throwing listener is logged and the others still hear the change", () => {
    const { cluster, watcher, logger } = setup();
    const before = recorder();
    const after = recorder();
    watcher.subscribe(ID, before);
    watcher.subscribe(ID, {
      updateService: (ports) => {
        if (ports.has(9000)) throw new Error("boom");
      },
    });
    watcher.subscribe(ID, after);
    cluster.apply(service("9000"));
    expect(before.sets).toEqual([[25, 3306], [9000]]);
    expect(after.sets).toEqual([[25, 3306], [9000]]);
    expect(logger.error).toHaveBeenCalledWith(
      "listener failed",
      expect.objectContaining({ ...LABELS, error: "Error: boom" }),
    );
  });

  it("stop() removes the cache handler: later events reach no listener", () => {
    const { cluster, watcher } = setup();
    const listener = recorder();
    watcher.subscribe(ID, listener);
    watcher.stop();
    cluster.apply(service("9000"));
    expect(listener.sets).toEqual([[25, 3306]]);
  });
});
