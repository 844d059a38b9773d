import { toBinary, toJson } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { durationFromMs, durationFromNanos, durationToMs, durationToNanos } from "./duration.js";

describe("duration helpers", () => {
  it.each([
    [0, 0n, 0],
    [200, 0n, 200_000_000],
    [1500, 1n, 500_000_000],
    [10_000, 10n, 0],
    [-1500, -1n, -500_000_000],
    [-200, 0n, -200_000_000],
    [0.1, 0n, 100_000],
    [1.000001, 0n, 1_000_001],
  ])("durationFromMs(%d) = {seconds: %d, nanos: %d}", (ms, seconds, nanos) => {
    const d = durationFromMs(ms);
    expect(d.seconds).toBe(seconds);
    expect(d.nanos).toBe(nanos);
    expect(Number.isInteger(d.nanos)).toBe(true);
    // Must always be encodable.
    expect(() => toBinary(DurationSchema, d)).not.toThrow();
  });

  it("truncates toward zero from nanoseconds, remainder keeps the sign", () => {
    expect(durationFromNanos(200_000_000n)).toMatchObject({ seconds: 0n, nanos: 200_000_000 });
    expect(durationFromNanos(-1_500_000_000n)).toMatchObject({ seconds: -1n, nanos: -500_000_000 });
    expect(durationFromNanos(5_400_000_000_000n)).toMatchObject({ seconds: 5400n, nanos: 0 });
  });

  it("has the proto JSON form protobuf-es expects", () => {
    expect(toJson(DurationSchema, durationFromMs(10_000))).toBe("10s");
    expect(toJson(DurationSchema, durationFromMs(200))).toBe("0.200s");
  });

  it("rejects non-finite input", () => {
    expect(() => durationFromMs(Number.NaN)).toThrow(RangeError);
    expect(() => durationFromMs(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("round-trips nanoseconds exactly and whole milliseconds exactly", () => {
    const tenThousandYears = 315_576_000_000n * 1_000_000_000n;
    fc.assert(
      fc.property(fc.bigInt({ min: -tenThousandYears, max: tenThousandYears }), (ns) => {
        const d = durationFromNanos(ns);
        expect(durationToNanos(d)).toBe(ns);
        expect(d.seconds === 0n || d.nanos === 0 || d.seconds > 0n === d.nanos > 0).toBe(true);
        expect(Math.abs(d.nanos)).toBeLessThan(1_000_000_000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), (ms) => {
        expect(durationToMs(durationFromMs(ms))).toBe(ms);
      }),
    );
  });
});
