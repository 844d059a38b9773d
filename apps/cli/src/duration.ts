// Durations as an operator writes them (500ms, 1.5s, 1m30s, 2h): printed in output, and parsed
// from `--timeout` and `--settle`.

const trim = (n: number) => String(Number(n.toFixed(6)));

export function formatDurationMs(ms: number): string {
  if (ms < 0) return `-${formatDurationMs(-ms)}`;
  if (ms === 0) return "0s";
  if (ms < 1) return `${trim(ms * 1000)}µs`;
  if (ms < 1000) return `${trim(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return [
    hours > 0 ? `${hours}h` : "",
    minutes > 0 ? `${minutes}m` : "",
    seconds > 0 ? `${trim(seconds)}s` : "",
  ].join("");
}

// `--timeout` and `--settle` values: one or more `<number><unit>` groups, as in Go (`5s`,
// `500ms`, `1m30s`). A bare number is rejected ("5" could mean seconds or milliseconds), except
// `0` where zero is allowed, as Go's time.ParseDuration accepts it.
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const GROUP = /(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h)/y;

/** Milliseconds of `text`, or undefined when it is not a duration. */
function durationMs(text: string): number | undefined {
  if (text === "") return undefined;
  GROUP.lastIndex = 0;
  let total = 0;
  while (GROUP.lastIndex < text.length) {
    const match = GROUP.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
}

/** Milliseconds of `text`, or undefined when it is not a positive duration. */
export function parseDurationMs(text: string): number | undefined {
  const ms = durationMs(text);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

/** Milliseconds of `text`, zero (`0`, `0s`) included, or undefined when it is not a duration. */
export function parseDurationOrZeroMs(text: string): number | undefined {
  return text === "0" ? 0 : durationMs(text);
}
