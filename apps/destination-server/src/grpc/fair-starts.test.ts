import { describe, expect, it } from "vitest";
import { FairStarts } from "./fair-starts.js";

/** Spins for `ms`: a start that costs what thousands of subscriptions cost together. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

/** Resolves once every start queued so far has run. */
function drained(starts: FairStarts): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (starts.size === 0 ? resolve() : setImmediate(check));
    setImmediate(check);
  });
}

describe("FairStarts", () => {
  it("starts one connection's calls in the order they came, after the current tick", async () => {
    const starts = new FairStarts();
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) starts.run("10.0.0.1:4000", () => ran.push(i));
    expect(ran).toEqual([]);
    await drained(starts);
    expect(ran).toEqual([0, 1, 2, 3, 4]);
  });

  it("starts a second connection's call in the first turn, ahead of another's backlog", async () => {
    const starts = new FairStarts();
    const ran: string[] = [];
    for (let i = 0; i < 100; i++) starts.run("attacker:1", () => ran.push(`a${i}`));
    starts.run("canary:2", () => ran.push("canary"));
    await drained(starts);
    expect(ran.indexOf("canary")).toBe(1);
    expect(ran.filter((r) => r !== "canary")).toEqual(
      Array.from({ length: 100 }, (_, i) => `a${i}`),
    );
  });

  it("gives the event loop back after a slice, so other sockets are read meanwhile", async () => {
    const starts = new FairStarts(5);
    let ran = 0;
    for (let i = 0; i < 40; i++) {
      starts.run("attacker:1", () => {
        busy(1);
        ran++;
      });
    }
    // What a socket read would be: a callback of the next event-loop turn.
    const seenAt = await new Promise<number>((resolve) => setImmediate(() => resolve(ran)));
    expect(seenAt).toBeGreaterThan(0);
    expect(seenAt).toBeLessThan(40);
    await drained(starts);
    expect(ran).toBe(40);
  });
});
