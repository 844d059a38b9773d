// Go's time.ParseDuration, which ServiceProfile `timeout` and `retryBudget.ttl` and the server's
// duration flags are read with. Written from the grammar and its limits; see README "Durations".

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n], // U+00B5 micro sign
  ["μs", 1_000n], // U+03BC Greek mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

/** Go accumulates into a uint64 and fails past 2⁶³. */
const LIMIT = 1n << 63n;

export class GoDurationError extends Error {
  override readonly name = "GoDurationError";
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Parses `[-+]?(<decimal><unit>)+` or a lone `0` into nanoseconds, within the int64 range.
 * Fractions are scaled in float64 and truncated, as Go does, so `1.0000000001h` rounds the same.
 * @throws GoDurationError
 */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new GoDurationError(`invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let negative = false;
  if (s[0] === "-" || s[0] === "+") {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();

  let total = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) throw invalid();

    let i = 0;
    let whole = 0n;
    for (; isDigit(s[i]); i++) {
      if (whole > LIMIT / 10n) throw invalid();
      whole = whole * 10n + BigInt(Number(s[i]));
      if (whole > LIMIT) throw invalid();
    }
    const hasWhole = i > 0;
    s = s.slice(i);

    // Past 19 digits the fraction stops gaining precision instead of failing.
    let fraction = 0n;
    let scale = 1;
    let hasFraction = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let saturated = false;
      for (; isDigit(s[j]); j++) {
        if (saturated) continue;
        if (fraction > (LIMIT - 1n) / 10n) {
          saturated = true;
          continue;
        }
        const next = fraction * 10n + BigInt(Number(s[j]));
        if (next > LIMIT) {
          saturated = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      hasFraction = j > 0;
      s = s.slice(j);
    }
    if (!hasWhole && !hasFraction) throw invalid();

    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++;
    if (u === 0) throw new GoDurationError(`missing unit in duration ${JSON.stringify(text)}`);
    const unitText = s.slice(0, u);
    s = s.slice(u);
    const unit = NANOS_PER_UNIT.get(unitText);
    if (unit === undefined) {
      throw new GoDurationError(
        `unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(text)}`,
      );
    }

    if (whole > LIMIT / unit) throw invalid();
    let value = whole * unit;
    if (fraction > 0n) {
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > LIMIT) throw invalid();
    }
    total += value;
    if (total > LIMIT) throw invalid();
  }
  if (negative) return -total;
  if (total > LIMIT - 1n) throw invalid();
  return total;
}
