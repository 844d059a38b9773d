import { describe, expect, it } from "vitest";
import { PingStrikes } from "./ping-strikes.js";

function strikes(permitWithoutCalls: boolean) {
  let now = 0;
  const record = new PingStrikes({ minPingIntervalMs: 10_000, permitWithoutCalls }, () => now);
  return {
    record,
    /** Pings `after` ms after the previous one; true when the client is sent away. */
    ping: (after: number, openCalls = 1) => {
      now += after;
      return record.ping(openCalls);
    },
  };
}

describe("PingStrikes", () => {
  it("never refuses pings at the limit or slower", () => {
    const { ping } = strikes(true);
    for (let i = 0; i < 100; i++) expect(ping(10_000, i % 2)).toBe(false);
  });

  it("sends away the third ping too soon, the first one never counting", () => {
    const { ping } = strikes(true);
    expect([ping(0), ping(1000), ping(1000), ping(1000)]).toEqual([false, false, false, true]);
  });

  it("forgives the ping after the server sent something", () => {
    const { record, ping } = strikes(true);
    expect([ping(0), ping(1000), ping(1000)]).toEqual([false, false, false]);
    record.sent();
    expect(ping(1000)).toBe(false);
    // The slate is clean: two more strikes are tolerated again.
    expect([ping(1000), ping(1000), ping(1000)]).toEqual([false, false, true]);
  });

  it("clears the strikes with a ping on time: only early pings in a row count", () => {
    const { ping } = strikes(true);
    const early = 9999;
    // Early, early, on time, early, early, on time…: never three in a row, never sent away.
    for (let i = 0; i < 60; i++) expect(ping(i % 3 === 2 ? 10_000 : early)).toBe(false);
    expect([ping(early), ping(early), ping(early)]).toEqual([false, false, true]);
  });

  it("without calls, judges pings by two hours unless they are permitted", () => {
    const strict = strikes(false);
    expect([0, 1, 2, 3].map(() => strict.ping(60_000, 0))).toEqual([false, false, false, true]);
    const lenient = strikes(true);
    expect([0, 1, 2, 3].map(() => lenient.ping(60_000, 0))).toEqual([false, false, false, false]);
  });
});
