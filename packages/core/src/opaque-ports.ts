import type { Logger } from "./logger.js";
import type { Pod, Service } from "./objects/core.js";
import type { ExternalWorkload } from "./objects/linkerd.js";

/** The annotation naming opaque ports on pods, Services and ExternalWorkloads. */
export const OPAQUE_PORTS_ANNOTATION = "config.linkerd.io/opaque-ports";

const PORT = /^\+?\d+$/;

function parsePort(text: string): number | undefined {
  if (!PORT.test(text)) return undefined;
  const n = Number(text);
  return n <= 65535 ? n : undefined;
}

/**
 * `N` or `L-U` (decimal, 0 to 65535, a leading `+` allowed, `L <= U`): the ports it covers, or
 * undefined when it is not a range.
 */
export function parsePortRange(item: string): { lo: number; hi: number } | undefined {
  const parts = item.split("-");
  if (parts.length > 2) return undefined;
  const lo = parsePort(parts[0] ?? "");
  const hi = parts.length === 2 ? parsePort(parts[1] ?? "") : lo;
  if (lo === undefined || hi === undefined || hi < lo) return undefined;
  return { lo, hi };
}

function items(value: string): string[] {
  const trimmed = value.endsWith(",") ? value.slice(0, -1) : value;
  return trimmed.split(",").map((s) => s.trim());
}

/**
 * Parses a comma list of ports and ranges, resolving names first through `names` (a port named
 * `123-456` wins over the range). One trailing comma is dropped and items are trimmed. Invalid
 * items are logged and skipped; the rest still count. See README "Opaque ports".
 */
export function parseOpaquePorts(
  value: string,
  names: (item: string) => number | undefined = () => undefined,
  logger?: Logger,
): Set<number> {
  const ports = new Set<number>();
  for (const item of items(value)) {
    const named = names(item);
    if (named !== undefined) {
      ports.add(named);
      continue;
    }
    const range = parsePortRange(item);
    if (range === undefined) {
      logger?.warn("invalid opaque port, skipped", { item, value });
      continue;
    }
    for (let p = range.lo; p <= range.hi; p++) ports.add(p);
  }
  return ports;
}

/** `--default-opaque-ports`: numbers and ranges only; empty means no port. */
export function parseDefaultOpaquePorts(value: string, logger?: Logger): Set<number> {
  return value.trim() === "" ? new Set() : parseOpaquePorts(value, undefined, logger);
}

function annotationOf(annotations: Record<string, string> | null | undefined): string | undefined {
  return annotations != null && Object.hasOwn(annotations, OPAQUE_PORTS_ANNOTATION)
    ? annotations[OPAQUE_PORTS_ANNOTATION]
    : undefined;
}

function fromAnnotation(
  value: string | undefined,
  defaults: ReadonlySet<number>,
  names: (item: string) => number | undefined,
  logger?: Logger,
): ReadonlySet<number> {
  if (value === undefined) return defaults;
  if (value === "") return new Set();
  return parseOpaquePorts(value, names, logger);
}

/**
 * A pod's opaque ports: the annotation if present (an empty one means none), else the defaults.
 * Names resolve to container ports, init containers included; unnamed ports are never candidates.
 */
export function podOpaquePorts(
  pod: Pod | null | undefined,
  defaults: ReadonlySet<number>,
  logger?: Logger,
): ReadonlySet<number> {
  if (pod == null) return defaults;
  const value = annotationOf(pod.metadata.annotations);
  // Most pods have no annotation: the port names are read only when one needs resolving.
  if (value === undefined || value === "") return fromAnnotation(value, defaults, noNames);
  const named = new Map<string, number>();
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const p of c.ports ?? []) if (p.name) named.set(p.name, p.containerPort);
  }
  return fromAnnotation(value, defaults, (i) => named.get(i), logger);
}

const noNames = (): undefined => undefined;

/**
 * An ExternalWorkload's opaque ports, names resolving through `spec.ports`. Every port name is a
 * candidate, the empty one included, so an empty item selects an unnamed port: upstream does
 * this, and we reproduce it (README "Opaque ports").
 */
export function externalWorkloadOpaquePorts(
  ew: ExternalWorkload | null | undefined,
  defaults: ReadonlySet<number>,
  logger?: Logger,
): ReadonlySet<number> {
  if (ew == null) return defaults;
  const ports = ew.spec?.ports ?? [];
  const names = (item: string) => ports.find((p) => (p.name ?? "") === item)?.port;
  return fromAnnotation(annotationOf(ew.metadata.annotations), defaults, names, logger);
}

/**
 * A Service's opaque ports: names resolve to the service `port`, not its targetPort, and an
 * empty item selects an unnamed service port, as upstream (README "Opaque ports").
 */
export function serviceOpaquePorts(
  service: Service | null | undefined,
  defaults: ReadonlySet<number>,
  logger?: Logger,
): ReadonlySet<number> {
  if (service == null) return defaults;
  const ports = service.spec?.ports ?? [];
  const names = (item: string) => ports.find((p) => (p.name ?? "") === item)?.port;
  return fromAnnotation(annotationOf(service.metadata.annotations), defaults, names, logger);
}
