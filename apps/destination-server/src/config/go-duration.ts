// Go's time.ParseDuration, for flag values such as `10s` or `1m30s`.

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const GROUP = /^([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/u;

/** Milliseconds of a Go duration (`0` alone is valid, a unit is required otherwise). */
export function parseGoDurationMs(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`time: invalid duration "${text}"`);
  let total = 0;
  while (rest !== "") {
    const match = GROUP.exec(rest);
    const number = match?.[1] ?? "";
    if (match === null || number === "" || number === ".") {
      throw new Error(`time: invalid duration "${text}"`);
    }
    total += Number(number) * (UNITS[match[2] ?? ""] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}
