import { goQuote, splitHostPort } from "@destination/go-compat";

/** An authority (`GetDestination.path`) split into host and port (README "Authorities"). */
export interface Authority {
  readonly host: string;
  readonly port: number;
}

/** Why an authority could not be split; `message` is upstream's error text. */
export class AuthorityError extends Error {
  override readonly name = "AuthorityError";
}

const DEFAULT_PORT = 80;
const PLAIN_PORT = /^[0-9]{1,5}$/;

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

/** Go's `strconv.Atoi` on a 64-bit platform: the value, or Go's error text. */
export function goAtoi(text: string): bigint | string {
  const error = (why: string) => `strconv.Atoi: parsing ${goQuote(text)}: ${why}`;
  if (!/^[+-]?[0-9]+$/.test(text)) return error("invalid syntax");
  const value = BigInt(text);
  if (value > MAX_INT64 || value < MIN_INT64) return error("value out of range");
  return value;
}

/**
 * Splits `path` into host and port like upstream's `getHostAndPort`: no colon means port 80;
 * otherwise Go's SplitHostPort rules (shared with the translators, which do not check the port),
 * then a decimal port (leading `+` and zeros allowed) in 1..65535.
 * Throws an AuthorityError carrying upstream's message.
 */
export function parseAuthority(path: string): Authority {
  if (!path.includes(":")) return { host: path, port: DEFAULT_PORT };
  const split = splitHostPort(path);
  if (typeof split === "string") throw new AuthorityError(`invalid destination: ${split}`);
  // The usual port, one to five plain digits, needs none of Atoi's 64-bit rules.
  if (PLAIN_PORT.test(split.port)) {
    const port = Number(split.port);
    if (port === 0 || port > 65535) throw new AuthorityError(`invalid port ${port}`);
    return { host: split.host, port };
  }
  const port = goAtoi(split.port);
  if (typeof port === "string") throw new AuthorityError(`invalid port ${split.port}: ${port}`);
  if (port <= 0n || port > 65535n) throw new AuthorityError(`invalid port ${port}`);
  return { host: split.host, port: Number(port) };
}

/**
 * A Kubernetes service authority (README "Authorities"), with the StatefulSet-style instance if
 * any.
 */
export interface ServiceName {
  readonly namespace: string;
  readonly name: string;
  /** The first label of `<instance>.<svc>.<ns>.svc.<domain>`, else "". */
  readonly instance: string;
}

/** Why a host is not a service name; `message` is upstream's text. */
export class ServiceNameError extends Error {
  override readonly name = "ServiceNameError";
}

/**
 * Parses `<svc>.<ns>.svc.<domain>` or `<instance>.<svc>.<ns>.svc.<domain>`, comparing the
 * suffix exactly (no trailing dot, no short names), as upstream's `parseK8sServiceName`.
 */
export function parseServiceName(host: string, clusterDomain: string): ServiceName {
  const labels = host.split(".");
  const suffix = suffixLabels(clusterDomain);
  const offset = labels.length - suffix.length;
  let matches = offset >= 0;
  for (let i = 0; matches && i < suffix.length; i++) matches = labels[offset + i] === suffix[i];
  if (!matches) {
    throw new ServiceNameError(`name ${host} does not match cluster domain ${clusterDomain}`);
  }
  if (offset === 2) {
    return { name: labels[0] ?? "", namespace: labels[1] ?? "", instance: "" };
  }
  if (offset === 3) {
    return { instance: labels[0] ?? "", name: labels[1] ?? "", namespace: labels[2] ?? "" };
  }
  throw new ServiceNameError(`invalid k8s service ${host}`);
}

/** `svc` and the domain's labels. A server has one cluster domain: the last one is kept. */
let lastSuffix: { readonly domain: string; readonly labels: readonly string[] } | undefined;

function suffixLabels(clusterDomain: string): readonly string[] {
  if (lastSuffix?.domain !== clusterDomain) {
    lastSuffix = { domain: clusterDomain, labels: ["svc", ...clusterDomain.split(".")] };
  }
  return lastSuffix.labels;
}
