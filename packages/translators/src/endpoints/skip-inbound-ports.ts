import { type Logger, type Pod, parsePortRange } from "@destination/core";

const SKIP_INBOUND_PORTS_ANNOTATION = "config.linkerd.io/skip-inbound-ports";

/**
 * Whether the pod's proxy is bypassed for inbound traffic on `port`
 * (`config.linkerd.io/skip-inbound-ports`, numbers and ranges only; names are invalid). Such a port
 * gets neither hints nor identity. Ranges are tested, not expanded: `1-65535` is a common value.
 */
export function isSkippedInboundPort(pod: Pod, port: number, logger: Logger): boolean {
  const value = pod.metadata.annotations?.[SKIP_INBOUND_PORTS_ANNOTATION] ?? "";
  if (value === "") return false;
  const list = value.endsWith(",") ? value.slice(0, -1) : value;
  let skipped = false;
  for (const raw of list.split(",")) {
    const item = raw.trim();
    const range = parsePortRange(item);
    if (range === undefined) {
      logger.warn("invalid skip-inbound-ports item, ignored", { item, pod: pod.metadata.name });
      continue;
    }
    if (range.lo <= port && port <= range.hi) skipped = true;
  }
  return skipped;
}
