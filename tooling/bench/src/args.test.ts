import { describe, expect, it } from "vitest";
import { ArgsError, DEFAULT_SCENARIOS, parseArgs, resolvePlan } from "./args.js";

describe("parseArgs", () => {
  it("defaults to a full run of every scenario", () => {
    const args = parseArgs([]);
    expect(args.quick).toBe(false);
    expect(args.json).toBeUndefined();
    expect(args.only).toEqual([...DEFAULT_SCENARIOS]);
    expect(args.only).not.toContain("cluster");
    expect(args.only).not.toContain("audit");
  });

  it("reads flags in both spellings and ignores a literal --", () => {
    const args = parseArgs([
      "--",
      "--quick",
      "--json",
      "out.json",
      "--runs=3",
      "--only",
      "fanout,churn",
      "--churn-seconds=7",
      "--fanout-streams",
      "100,2000",
    ]);
    expect(args).toMatchObject({
      quick: true,
      json: "out.json",
      runs: 3,
      only: ["fanout", "churn"],
      churnSeconds: 7,
      fanoutStreams: [100, 2000],
    });
  });

  it("rejects unknown flags, scenarios, missing values and bad numbers", () => {
    expect(() => parseArgs(["--fast"])).toThrow(ArgsError);
    expect(() => parseArgs(["--only", "fanout,nope"])).toThrow(/unknown scenario nope/);
    expect(() => parseArgs(["--json"])).toThrow(/needs a value/);
    expect(() => parseArgs(["--runs", "0"])).toThrow(/positive integer/);
    expect(() => parseArgs(["--runs", "2.5"])).toThrow(/positive integer/);
    expect(() => parseArgs(["--scale-pods", "10,x"])).toThrow(/positive integer/);
  });

  it("recognises --help", () => {
    expect(parseArgs(["-h"]).help).toBe(true);
  });
});

describe("resolvePlan", () => {
  it("uses the issue's sizes for a full run", () => {
    const plan = resolvePlan(parseArgs([]));
    expect(plan.fanout.streams).toEqual([1000, 10_000]);
    expect(plan.scale.pods).toEqual([1000, 10_000, 50_000]);
    expect(plan.scale.runs).toBe(5);
    expect(plan.churn).toMatchObject({ seconds: 30, eventsPerSecond: 500, subscriptions: 1000 });
    expect(plan.connections).toBe(100);
  });

  it("shrinks everything with --quick", () => {
    const plan = resolvePlan(parseArgs(["--quick"]));
    expect(plan.fanout.streams).toEqual([1000]);
    expect(plan.scale.pods).toEqual([1000, 10_000]);
    expect(plan.scale.runs).toBe(1);
    expect(plan.churn.seconds).toBe(5);
    expect(plan.storm.runs).toBe(1);
    expect(plan.fanout.rounds).toBe(8);
  });

  it("lets explicit flags override the defaults", () => {
    const plan = resolvePlan(parseArgs(["--quick", "--runs", "4", "--churn-seconds", "9"]));
    expect(plan.storm.runs).toBe(4);
    expect(plan.fanout.rounds).toBe(16);
    expect(plan.churn.seconds).toBe(9);
  });

  it("sizes the audit scenario: the issue's three sizes, one small one with --quick", () => {
    expect(resolvePlan(parseArgs(["--only", "audit"])).audit).toMatchObject({
      pods: [1000, 10_000, 50_000],
      runs: 3,
      intervalMs: 10_000,
    });
    expect(resolvePlan(parseArgs(["--quick", "--only", "audit"])).audit).toMatchObject({
      pods: [500],
      runs: 2,
    });
    const plan = resolvePlan(parseArgs(["--audit-pods=2000,4000", "--runs", "5"]));
    expect(plan.audit).toMatchObject({ pods: [2000, 4000], runs: 5 });
  });

  it("sizes the reconnect storm: 1k and 10k proxies over a second, a small one with --quick", () => {
    expect(resolvePlan(parseArgs(["--only", "reconnect-storm"])).reconnectStorm).toMatchObject({
      proxies: [1000, 10_000],
      passes: 3,
      windowMs: 1000,
      services: 1000,
    });
    expect(resolvePlan(parseArgs(["--quick"])).reconnectStorm).toMatchObject({
      proxies: [200],
      passes: 1,
      services: 200,
    });
    const plan = resolvePlan(parseArgs(["--storm-proxies", "300", "--cluster-pods", "500"]));
    expect(plan.reconnectStorm).toMatchObject({ proxies: [300], services: 50 });
    expect(() => parseArgs(["--storm-proxies", "0"])).toThrow(/not a positive integer/);
  });

  it("passes --ours-flag to our server in cluster mode, refusing what is not a flag", () => {
    const plan = resolvePlan(
      parseArgs(["--ours-flag=-grpc-serving-thread", "--ours-flag", "-log-level=info"]),
    );
    expect(plan.oursFlags).toEqual(["-grpc-serving-thread", "-log-level=info"]);
    expect(resolvePlan(parseArgs([])).oursFlags).toEqual([]);
    expect(() => parseArgs(["--ours-flag", "grpc-serving-thread"])).toThrow(/not a flag/);
  });
});
