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
