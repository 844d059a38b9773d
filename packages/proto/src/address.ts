// Text <-> proto conversion for io.linkerd.proxy.net addresses. See README "Address encoding".
//
// API choice: the parsers THROW `InvalidAddressError` on anything that is not an IP literal
// (an FQDN, a malformed literal, a bad port). Callers that must skip such endpoints catch it
// and log `err.message`, which names the input and the reason.
//
// The IP grammar is go-compat's (`parseIP`, Go's `net.ParseIP`), the workspace's only one.
import { create } from "@bufbuild/protobuf";
import { formatIP, isIPv4Mapped, parseIP } from "@destination/go-compat";
import {
  type IPAddress,
  IPAddressSchema,
  IPv6Schema,
  type TcpAddress,
  TcpAddressSchema,
} from "./gen/net_pb.js";

/** Thrown by this module: `input` is the rejected text (undefined when formatting an unset
 * proto value) and `reason` says what is wrong with it. */
export class InvalidAddressError extends Error {
  override readonly name = "InvalidAddressError";
  constructor(
    readonly input: string | undefined,
    readonly reason: string,
  ) {
    super(
      input === undefined
        ? `invalid address: ${reason}`
        : `invalid address ${JSON.stringify(input)}: ${reason}`,
    );
  }
}

const PORT = /^\d{1,5}$/;

/**
 * Parses an IP literal into its raw bytes: 4 for IPv4, 16 for IPv6 (including IPv4-mapped
 * `::ffff:a.b.c.d`, which stays 16 bytes). An IPv6 zone (`%eth0`) is dropped.
 * @throws InvalidAddressError
 */
export function ipBytesFromString(text: string): Uint8Array {
  if (text.includes(":")) {
    const pct = text.indexOf("%");
    if (pct === text.length - 1) throw new InvalidAddressError(text, "empty IPv6 zone");
    const bytes = parseIP(pct === -1 ? text : text.slice(0, pct));
    if (typeof bytes === "string") throw new InvalidAddressError(text, bytes);
    return bytes;
  }
  const bytes = parseIP(text);
  if (typeof bytes === "string")
    throw new InvalidAddressError(text, `not an IP address (${bytes})`);
  return bytes;
}

/** Builds the proto `IPAddress` from 4 or 16 raw bytes. */
export function ipAddressFromBytes(bytes: Uint8Array): IPAddress {
  if (bytes.length === 4) {
    // Big-endian, unsigned: what DataView.getUint32 reads, without a view per address.
    const value =
      (((bytes[0] ?? 0) << 24) |
        ((bytes[1] ?? 0) << 16) |
        ((bytes[2] ?? 0) << 8) |
        (bytes[3] ?? 0)) >>>
      0;
    // The plain object `create(IPAddressSchema, …)` would return: one per endpoint address.
    return { $typeName: "io.linkerd.proxy.net.IPAddress", ip: { case: "ipv4", value } };
  }
  if (bytes.length === 16) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ipv6 = create(IPv6Schema, { first: view.getBigUint64(0), last: view.getBigUint64(8) });
    return create(IPAddressSchema, { ip: { case: "ipv6", value: ipv6 } });
  }
  throw new RangeError(`an IP address has 4 or 16 bytes, got ${bytes.length}`);
}

/** Raw big-endian bytes of a proto `IPAddress` (4 or 16). */
export function ipAddressToBytes(addr: IPAddress): Uint8Array {
  const { ip } = addr;
  switch (ip.case) {
    case "ipv4": {
      const out = new Uint8Array(4);
      new DataView(out.buffer).setUint32(0, ip.value >>> 0);
      return out;
    }
    case "ipv6": {
      const out = new Uint8Array(16);
      const view = new DataView(out.buffer);
      view.setBigUint64(0, BigInt.asUintN(64, ip.value.first));
      view.setBigUint64(8, BigInt.asUintN(64, ip.value.last));
      return out;
    }
    default:
      throw new InvalidAddressError(undefined, "IPAddress has neither ipv4 nor ipv6 set");
  }
}

/**
 * `"172.17.0.12"` → `{ip: {case: "ipv4", value: 2886795276}}`;
 * `"2001:db8::68"` → `{ip: {case: "ipv6", value: {first: 0x20010db800000000n, last: 0x68n}}}`.
 * IPv4-mapped text stays IPv6; a zone suffix is dropped.
 * @throws InvalidAddressError for anything that is not an IP literal (e.g. an FQDN).
 */
export function ipAddressFromString(text: string): IPAddress {
  return ipAddressFromBytes(ipBytesFromString(text));
}

/** Formats 4 or 16 raw bytes canonically (see `ipAddressToString`). */
export function ipBytesToString(bytes: Uint8Array): string {
  // RFC 5952, section 5: IPv4-mapped addresses keep the dotted tail (Go prints them as IPv4;
  // the proxy API keeps them IPv6).
  return isIPv4Mapped(bytes) ? `::ffff:${formatIP(bytes)}` : formatIP(bytes);
}

/**
 * Canonical text: IPv4 dotted decimal; IPv6 per RFC 5952 (lower case, longest zero run
 * compressed, `::ffff:a.b.c.d` for IPv4-mapped).
 * @throws InvalidAddressError if neither ipv4 nor ipv6 is set.
 */
export function ipAddressToString(addr: IPAddress): string {
  return ipBytesToString(ipAddressToBytes(addr));
}

/**
 * Parses `"ip:port"` or `"[ipv6]:port"` (a zone inside the brackets is dropped). Unbracketed
 * IPv6 is rejected because its last group is indistinguishable from a port.
 * @throws InvalidAddressError
 */
export function tcpAddressFromString(text: string): TcpAddress {
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) throw new InvalidAddressError(text, "missing ']'");
    if (text[close + 1] !== ":") throw new InvalidAddressError(text, "expected ':port' after ']'");
    host = text.slice(1, close);
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon === -1) throw new InvalidAddressError(text, "missing ':port'");
    host = text.slice(0, colon);
    if (host.includes(":")) {
      throw new InvalidAddressError(text, "IPv6 host must be in brackets, as in [::1]:8080");
    }
    portText = text.slice(colon + 1);
  }
  if (!PORT.test(portText) || Number(portText) > 65535) {
    throw new InvalidAddressError(text, `bad port ${JSON.stringify(portText)}`);
  }
  let ip: IPAddress;
  try {
    ip = ipAddressFromString(host);
  } catch (err) {
    if (err instanceof InvalidAddressError) throw new InvalidAddressError(text, err.reason);
    throw err;
  }
  return create(TcpAddressSchema, { ip, port: Number(portText) });
}

/**
 * `"a.b.c.d:port"` or `"[ipv6]:port"` with the host in canonical form.
 * @throws InvalidAddressError if `ip` is missing or empty.
 */
export function tcpAddressToString(addr: TcpAddress): string {
  if (addr.ip === undefined) throw new InvalidAddressError(undefined, "TcpAddress has no ip");
  const host = ipAddressToString(addr.ip);
  return addr.ip.ip.case === "ipv6" ? `[${host}]:${addr.port}` : `${host}:${addr.port}`;
}
