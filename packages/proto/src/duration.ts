// google.protobuf.Duration helpers. The schema is the one from @bufbuild/protobuf/wkt, which is
// also what the generated code references, so there is exactly one Duration type in a program.
import { create } from "@bufbuild/protobuf";
import { type Duration, DurationSchema } from "@bufbuild/protobuf/wkt";

const NANOS_PER_SECOND = 1_000_000_000n;

/**
 * Nanoseconds → Duration: `seconds` is truncated toward zero and `nanos` keeps the remainder
 * with the same sign, as google.protobuf.Duration requires (e.g. 200ms → {seconds: 0,
 * nanos: 200000000}). See README "Durations".
 */
export function durationFromNanos(nanos: bigint): Duration {
  return create(DurationSchema, {
    seconds: nanos / NANOS_PER_SECOND,
    nanos: Number(nanos % NANOS_PER_SECOND),
  });
}

/** Duration → total nanoseconds, exact. */
export function durationToNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

/**
 * Milliseconds (may be fractional or negative) → Duration, rounded to whole nanoseconds.
 * Unlike wkt's `durationFromMs`, this never yields a fractional `nanos`, which would not encode.
 * @throws RangeError for NaN or ±Infinity.
 */
export function durationFromMs(ms: number): Duration {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  // Split first so large values keep their sub-millisecond part.
  const wholeMs = Math.trunc(ms);
  const subMsNanos = Math.round((ms - wholeMs) * 1e6);
  return durationFromNanos(BigInt(wholeMs) * 1_000_000n + BigInt(subMsNanos));
}

/** Duration → milliseconds, keeping sub-millisecond precision as a fraction. */
export function durationToMs(d: Duration): number {
  return Number(d.seconds) * 1000 + d.nanos / 1e6;
}
