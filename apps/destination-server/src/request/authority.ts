import { goQuote } from "./go-quote.js";

/** An authority (`GetDestination.path`) split into host and port (api.md §2.3). */
export interface Authority {
  readonly host: string;
  readonly port: number;
}

/** Why an authority could not be split; `message` is upstream's error text. */
export class AuthorityError extends Error {
  override readonly name = "AuthorityError";
}

const DEFAULT_PORT = 80;

/** Go's `net.SplitHostPort`, returning the error text Go would print. */
export function splitHostPort(hostport: string): { host: string; port: string } | string {
  const fail = (why: string) => `address ${hostport}: ${why}`;
  const missingPort = "missing port in address";
  const tooManyColons = "too many colons in address";
  const i = hostport.lastIndexOf(":");
  if (i < 0) return fail(missingPort);
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === hostport.length) return fail(missingPort);
    if (end + 1 !== i) {
      return fail(hostport[end + 1] === ":" ? tooManyColons : missingPort);
    }
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return fail(tooManyColons);
  }
  if (hostport.slice(j).includes("[")) return fail("unexpected '[' in address");
  if (hostport.slice(k).includes("]")) return fail("unexpected ']' in address");
  return { host, port: hostport.slice(i + 1) };
}

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
 * otherwise Go's SplitHostPort rules, a decimal port (leading `+` and zeros allowed) in 1..65535.
 * Throws an AuthorityError carrying upstream's message.
 */
export function parseAuthority(path: string): Authority {
  if (!path.includes(":")) return { host: path, port: DEFAULT_PORT };
  const split = splitHostPort(path);
  if (typeof split === "string") throw new AuthorityError(`invalid destination: ${split}`);
  const port = goAtoi(split.port);
  if (typeof port === "string") throw new AuthorityError(`invalid port ${split.port}: ${port}`);
  if (port <= 0n || port > 65535n) throw new AuthorityError(`invalid port ${port}`);
  return { host: split.host, port: Number(port) };
}
