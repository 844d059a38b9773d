import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { PromMetricsRegistry } from "./prom-metrics-registry.js";

/** The value of one series as a scrape shows it, undefined when the series is not shown. */
async function scraped(registry: Registry, series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("PromMetricsRegistry bound counters", () => {
  it("show a bound series at 0 at once, then every increment at each scrape", async () => {
    const registry = new Registry();
    const counter = new PromMetricsRegistry(registry).counter("events_total", "Events", ["kind"]);
    const pods = counter.bind({ kind: "Pod" });
    expect(await scraped(registry, 'events_total{kind="Pod"}')).toBe(0);

    pods.inc();
    pods.inc(2);
    expect(await scraped(registry, 'events_total{kind="Pod"}')).toBe(3);
    pods.inc();
    counter.inc({ kind: "Pod" });
    expect(await scraped(registry, 'events_total{kind="Pod"}')).toBe(5);
  });

  it("drop what a removed series had not shown yet, and count anew after it", async () => {
    const registry = new Registry();
    const counter = new PromMetricsRegistry(registry).counter("events_total", "Events", ["kind"]);
    const pods = counter.bind({ kind: "Pod" });
    const services = counter.bind({ kind: "Service" });
    pods.inc(4);
    services.inc();
    counter.remove({ kind: "Pod" });
    expect(await scraped(registry, 'events_total{kind="Pod"}')).toBeUndefined();
    expect(await scraped(registry, 'events_total{kind="Service"}')).toBe(1);

    pods.inc();
    expect(await scraped(registry, 'events_total{kind="Pod"}')).toBe(1);
  });

  it("refuse a label set the counter does not have when bound, not at a scrape", () => {
    const counter = new PromMetricsRegistry(new Registry()).counter("events_total", "Events", [
      "kind",
    ]);
    expect(() => counter.bind({ type: "ADDED" })).toThrow(/label/i);
  });
});
