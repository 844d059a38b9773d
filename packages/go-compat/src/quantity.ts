// Kubernetes resource quantities ("1", "500m", "0.5", "1Ki", "1e3"), as ServiceProfile
// `dstOverrides[].weight` is read upstream, reduced to what the translator needs: the value in
// thousandths, rounded the way apimachinery's `Quantity.MilliValue()` rounds. Written from the
// documented format and its observable results, including the int64 wrap-around of huge values.

export class QuantityError extends Error {
  override readonly name = "QuantityError";
}

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;
const wrap64 = (x: bigint) => BigInt.asIntN(64, x);

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const SUFFIX_LETTERS = "eEinumkKMGTP";
// What Go's strings.TrimSpace removes (unicode.IsSpace).
const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const SIGNED_INT64 = /^[+-]?[0-9]+$/;
const DECIMAL = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/;
// Past 10^70 every milli value is a multiple of 2⁶⁴; no need to build it exactly.
const EXACT_POWER_LIMIT = 70;

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

interface QuantityParts {
  readonly positive: boolean;
  /** Sign, digits and fraction as written, without the suffix. */
  readonly value: string;
  /** Integer digits without leading zeros ("0" if none). */
  readonly num: string;
  /** Fraction digits. */
  readonly denom: string;
  readonly suffix: string;
}

function splitQuantity(str: string): QuantityParts {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === "-" || str[0] === "+") {
    positive = str[0] === "+";
    pos++;
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };

  let start = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  const num = str.slice(start, pos) || "0";
  if (pos >= end) return { positive, value: str, num, denom: "", suffix: "" };

  let denom = "";
  if (str[pos] === ".") {
    start = ++pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(start, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: "" };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos] ?? "")) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError(`quantity ${JSON.stringify(str)} has a malformed suffix`);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly binary: boolean;
}

function interpretSuffix(suffix: string, str: string): Suffix {
  const decimal = DECIMAL_SUFFIXES.get(suffix);
  if (decimal !== undefined) return { base: 10, exponent: decimal, binary: false };
  const binary = BINARY_SUFFIXES.get(suffix);
  if (binary !== undefined) return { base: 2, exponent: binary, binary: true };
  const digits = suffix.slice(1);
  if ((suffix[0] === "e" || suffix[0] === "E") && SIGNED_INT64.test(digits)) {
    const parsed = BigInt(digits);
    if (parsed >= MIN_INT64 && parsed <= MAX_INT64) {
      // The exponent is kept in 32 bits upstream.
      return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), binary: false };
    }
  }
  throw new QuantityError(`quantity ${JSON.stringify(str)} has an unknown suffix`);
}

function int64Multiply(a: bigint, b: bigint): bigint | undefined {
  if (a === 0n || b === 0n || a === 1n || b === 1n) return a * b;
  if (a === MIN_INT64 || b === MIN_INT64) return undefined;
  const c = wrap64(a * b);
  return c / b === a ? c : undefined;
}

function int64MultiplyScale(a: bigint, b: bigint): bigint | undefined {
  if (a === 0n || a === 1n) return a * b;
  if (a === MIN_INT64 && b !== 1n) return undefined;
  const c = wrap64(a * b);
  return c / b === a ? c : undefined;
}

/** `base × 10^scale`, or undefined on int64 overflow. */
function scaleUpInt64(base: bigint, scale: number): bigint | undefined {
  if (scale === 0) return base;
  if ([1, 2, 3, 6, 9].includes(scale)) return int64MultiplyScale(base, 10n ** BigInt(scale));
  let value = base;
  for (let i = 0; i < scale; i++) {
    if (value === 0n) return 0n;
    const next = int64MultiplyScale(value, 10n);
    if (next === undefined) return undefined;
    value = next;
  }
  return value;
}

/** `base ÷ 10^scale`, rounded away from zero when inexact. */
function scaleDownInt64(base: bigint, scale: number): bigint {
  let value = base;
  let inexact = false;
  for (let i = 0; i < scale; i++) {
    if (!inexact && value % 10n !== 0n) inexact = true;
    value /= 10n;
    if (value === 0n) return inexact ? (base > 0n ? 1n : -1n) : 0n;
  }
  if (inexact) value += base > 0n ? 1n : -1n;
  return value;
}

/** Integer division rounding toward −∞, as big.Int.DivMod does for a positive divisor. */
function floorDiv(a: bigint, b: bigint): { q: bigint; r: bigint } {
  let q = a / b;
  let r = a % b;
  if (r < 0n) {
    q -= 1n;
    r += b;
  }
  return { q, r };
}

/** Thousandths of a decimal `unscaled × 10^-scale`, rounded and wrapped as upstream does. */
function decimalMilli(unscaled: bigint, scale: number): bigint {
  const dif = scale - 3;
  if (unscaled === 0n) return 0n;
  if (dif === 0) return wrap64(unscaled);
  if (dif < 0) return wrap64(wrap64(unscaled) * 10n ** BigInt(-dif));
  const divisor = 10n ** BigInt(dif);
  if (unscaled < MAX_INT64 && dif < 19) {
    const v = wrap64(unscaled);
    const q = v / divisor;
    return v % divisor !== 0n ? q + 1n : q;
  }
  const { q, r } = floorDiv(unscaled, divisor);
  return wrap64(wrap64(q) + (r !== 0n ? 1n : 0n));
}

/**
 * The part of a quantity that does not fit the int64 fast path: made exact at nanosecond
 * precision (rounding up, away from zero), binary values capped at the int64 maximum, then
 * reduced to thousandths.
 */
function slowPathMilli(parts: QuantityParts, suffix: Suffix, str: string): bigint {
  const m = DECIMAL.exec(parts.value);
  const intDigits = m?.[2] ?? "";
  const fracDigits = m?.[3] ?? "";
  if (m === null || intDigits + fracDigits === "") {
    throw new QuantityError(`quantity ${JSON.stringify(str)} is not a number`);
  }
  const negative = m[1] === "-";
  let magnitude = BigInt(intDigits + fracDigits);
  let scale = fracDigits.length;
  if (suffix.base === 10) scale -= suffix.exponent;
  else magnitude <<= BigInt(suffix.exponent);
  if (magnitude === 0n) return 0n;

  // Nanosecond precision is scale 9. Beyond 10^64 the result is a multiple of 2^64, which the
  // int64 arithmetic upstream wraps to 0; building the exact value would only cost time.
  const shift = 9 - scale;
  if (shift > EXACT_POWER_LIMIT) return 0n;
  let nanos: bigint;
  if (shift >= 0) {
    nanos = magnitude * 10n ** BigInt(shift);
  } else if (-shift > magnitude.toString().length) {
    nanos = 1n;
  } else {
    const divisor = 10n ** BigInt(-shift);
    nanos = (magnitude + divisor - 1n) / divisor;
  }
  if (suffix.binary && nanos > MAX_INT64 * 1_000_000_000n) {
    return decimalMilli(negative ? -MAX_INT64 : MAX_INT64, 0);
  }
  return decimalMilli(negative ? -nanos : nanos, 9);
}

/**
 * The quantity in thousandths (`Quantity.MilliValue()`): rounded up for positive fractions,
 * wrapping like an int64 for values beyond its range. A number is read as the JSON literal it
 * came from.
 * @throws QuantityError when the text is not a quantity
 */
export function quantityMilliValue(quantity: string | number): bigint {
  if (typeof quantity === "number" && !Number.isFinite(quantity)) {
    throw new QuantityError(`quantity ${quantity} is not finite`);
  }
  const str = String(quantity).replace(GO_SPACE, "");
  if (str === "") throw new QuantityError("quantity is empty");
  if (str === "0") return 0n;

  const parts = splitQuantity(str);
  const suffix = interpretSuffix(parts.suffix, str);

  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (!suffix.binary) {
    scale = suffix.exponent;
    precision = 18 - (parts.num.length + parts.denom.length);
  } else if (suffix.exponent >= 0 && parts.denom.length === 0) {
    mantissa = 1n << BigInt(suffix.exponent);
    precision = 15 - parts.num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= parts.denom.length;
    if (scale >= -9) {
      const product = int64Multiply(BigInt(parts.num + parts.denom), mantissa);
      if (product !== undefined) {
        const value = parts.positive ? product : -product;
        if (scale < -3) return scaleDownInt64(value, -3 - scale);
        return scaleUpInt64(value, scale + 3) ?? 0n;
      }
    }
  }
  return slowPathMilli(parts, suffix, str);
}

/**
 * A traffic-split weight in decimilli units (10000 = 100%): `ceil(q × 1000) × 10`, kept to 32
 * bits the way a Go `uint32(...)` conversion keeps them, so negative weights wrap.
 * @throws QuantityError
 */
export function quantityToWeight(quantity: string | number): number {
  return Number(BigInt.asUintN(32, quantityMilliValue(quantity) * 10n));
}
