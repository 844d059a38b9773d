// Durations as an operator writes them: 500ms, 1.5s, 1m30s, 2h.

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
