import type { Container, Pod } from "@destination/core";
import { InvalidAddressError, ipBytesFromString } from "@destination/proto";
import { TranslationError } from "../contracts.js";

const PROXY_CONTAINER = "linkerd-proxy";
const INBOUND_LISTEN_ADDR = "LINKERD2_PROXY_INBOUND_LISTEN_ADDR";
const ADMIN_LISTEN_ADDR = "LINKERD2_PROXY_ADMIN_LISTEN_ADDR";
const CONTROL_LISTEN_ADDR = "LINKERD2_PROXY_CONTROL_LISTEN_ADDR";
const META_PORT_NAMES = [ADMIN_LISTEN_ADDR, CONTROL_LISTEN_ADDR] as const;
const INBOUND_PORT_NAMES = [INBOUND_LISTEN_ADDR] as const;
const DIGITS = /^[0-9]+$/;
/** A port not (yet) read: real ports are 0 to 65535. */
const MISSING = -1;

// The same few values (`0.0.0.0:4143`, …) are in every pod's proxy env: each is parsed once.
// A failure is kept as its reason. Cleared when full, so odd values cannot make it grow.
const parsedListenAddrs = new Map<string, number | string>();
const MAX_PARSED_LISTEN_ADDRS = 256;

/** `parseListenPort`, remembered per value. */
function listenPort(value: string): number {
  let parsed = parsedListenAddrs.get(value);
  if (parsed === undefined) {
    try {
      parsed = parseListenPort(value);
    } catch (err) {
      parsed = err instanceof Error ? err.message : String(err);
    }
    if (parsedListenAddrs.size >= MAX_PARSED_LISTEN_ADDRS) parsedListenAddrs.clear();
    parsedListenAddrs.set(value, parsed);
  }
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

/**
 * The port of a literal `ip:port` or `[ipv6]:port`, with the rules of Go's
 * `netip.ParseAddrPort` (what upstream reads the proxy env with): no host names, brackets for
 * IPv6 only, a decimal port without sign.
 */
function parseListenPort(value: string): number {
  const colon = value.lastIndexOf(":");
  if (colon === -1) throw new Error("not an ip:port");
  let host = value.slice(0, colon);
  const port = value.slice(colon + 1);
  if (host === "") throw new Error("no IP");
  if (port === "") throw new Error("no port");
  const bracketed = host.startsWith("[");
  if (bracketed) {
    if (host.length < 2 || !host.endsWith("]")) throw new Error("missing ]");
    host = host.slice(1, -1);
  }
  if (!DIGITS.test(port) || Number(port) > 65535) throw new Error(`invalid port "${port}"`);
  let ip: Uint8Array;
  try {
    ip = ipBytesFromString(host);
  } catch (err) {
    if (err instanceof InvalidAddressError) throw new Error(err.reason);
    throw err;
  }
  if (bracketed && ip.length === 4) throw new Error("square brackets are for IPv6 only");
  if (!bracketed && ip.length === 16) throw new Error("IPv6 needs square brackets");
  return Number(port);
}

/**
 * Reads the ports of the named `ip:port` variables from the first `linkerd-proxy` container,
 * init containers first (native sidecars are init containers), in the order of `names`. Every
 * name must be present; where one is set twice the last counts. The result is only good until the
 * next call.
 * @throws TranslationError
 */
function proxyEnvPorts(
  pod: Pod,
  names: readonly [string] | readonly [string, string],
): readonly number[] {
  const proxy =
    proxyContainerOf(pod.spec?.initContainers) ?? proxyContainerOf(pod.spec?.containers);
  if (proxy === undefined) {
    throw new TranslationError(`pod has no ${PROXY_CONTAINER} container to read ${names} from`);
  }
  // Plain loops, and one array reused for the result: this runs for every address a first Get
  // translates, mostly before the JIT has optimised it, where a new array per call showed.
  const ports = readPorts;
  ports[0] = MISSING;
  ports[1] = MISSING;
  const envs = proxy.env ?? [];
  for (let i = 0; i < envs.length; i++) {
    const env = envs[i] as NonNullable<Container["env"]>[number];
    const at = names.indexOf(env.name);
    if (at === -1) continue;
    const value = env.value ?? "";
    try {
      ports[at] = listenPort(value);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new TranslationError(
        `${PROXY_CONTAINER} env ${env.name}=${JSON.stringify(value)} is not an ip:port (${reason})`,
      );
    }
  }
  for (let i = 0; i < names.length; i++) {
    if (ports[i] === MISSING) {
      const missing = names.filter((_, at) => ports[at] === MISSING);
      throw new TranslationError(`${PROXY_CONTAINER} container lacks env ${missing.join(", ")}`);
    }
  }
  return ports;
}

/** Where `proxyEnvPorts` reads into; callers read it before calling again. */
const readPorts: number[] = [MISSING, MISSING];

function proxyContainerOf(containers: readonly Container[] | null | undefined) {
  if (!containers) return undefined;
  for (let i = 0; i < containers.length; i++) {
    const container = containers[i] as Container;
    if (container.name === PROXY_CONTAINER) return container;
  }
  return undefined;
}

// The inbound port is read once per pod object: a changed pod is a new object, never the old one
// changed. Failures are not kept; they are read (and thrown) again.
const inboundPortByPod = new WeakMap<Pod, number>();

/**
 * Whether `port` is the proxy's admin or control port (4191 and 4190 by default): traffic to them
 * never gets opaque transport, even in forced mode. Read for every address a first Get
 * translates, without a cache: a cache entry per pod cost more than the few env entries read.
 * @throws TranslationError when either port cannot be read
 */
export function isProxyMetaPort(pod: Pod, port: number): boolean {
  const ports = proxyEnvPorts(pod, META_PORT_NAMES);
  return port === ports[0] || port === ports[1];
}

/**
 * The proxy's inbound port (4143 by default), the target of opaque transport.
 * @throws TranslationError
 */
export function proxyInboundPort(pod: Pod): number {
  const cached = inboundPortByPod.get(pod);
  if (cached !== undefined) return cached;
  const port = proxyEnvPorts(pod, INBOUND_PORT_NAMES)[0] ?? 0;
  if (port === 0) throw new TranslationError(`${INBOUND_LISTEN_ADDR} has port 0`);
  inboundPortByPod.set(pod, port);
  return port;
}
