// Text <-> proto conversion for io.linkerd.proxy.net addresses. See README "Address encoding".
//
// API choice: the parsers THROW `InvalidAddressError` on anything that is not an IP literal
// (an FQDN, a malformed literal, a bad port). Callers that must skip such endpoints catch it
// and log `err.message`, which names the input and the reason.
//
// Parsing is hand-written rather than delegated to `net.isIP` so that the accepted grammar is
// explicit and we get the bytes in the same pass.
import { create } from "@bufbuild/protobuf";
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

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const PORT = /^\d{1,5}$/;

/** Parses dotted-quad text into 4 bytes, or returns a reason string. Leading zeros are
 * rejected (as Go and Node do) because some parsers read them as octal. */
function parseIPv4Bytes(text: string): Uint8Array | string {
  return scanIPv4Bytes(text) ?? explainIPv4(text);
}

/**
 * The same grammar in one pass over the characters, undefined for anything it rejects: every
 * endpoint IP goes through here, and splitting plus a regex per part showed in profiles.
 */
function scanIPv4Bytes(text: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || part === 3) return undefined;
      out[part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && value === 0) return undefined;
      value = value * 10 + (c - 0x30);
      digits++;
      if (digits > 3 || value > 255) return undefined;
    } else {
      return undefined;
    }
  }
  if (part !== 3 || digits === 0) return undefined;
  out[3] = value;
  return out;
}

/** Why `text` is not a dotted quad (or its bytes after all). */
function explainIPv4(text: string): Uint8Array | string {
  const parts = text.split(".");
  if (parts.length !== 4) return "IPv4 needs exactly four dot-separated parts";
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] ?? "";
    if (!DECIMAL_OCTET.test(part)) return `bad IPv4 part ${JSON.stringify(part)}`;
    const n = Number(part);
    if (n > 255) return `IPv4 part ${n} exceeds 255`;
    out[i] = n;
  }
  return out;
}

/** Parses IPv6 text (no zone, no brackets) into 16 bytes, or returns a reason string. */
function parseIPv6Bytes(text: string): Uint8Array | string {
  const halves = text.split("::");
  if (halves.length > 2) return "'::' may appear only once";

  // Each side of '::' is a list of groups; only the last group overall may be dotted IPv4.
  const toWords = (side: string, isTail: boolean): number[] | string => {
    if (side === "") return [];
    const groups = side.split(":");
    const words: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] ?? "";
      if (isTail && i === groups.length - 1 && g.includes(".")) {
        const v4 = parseIPv4Bytes(g);
        if (typeof v4 === "string") return `embedded ${v4}`;
        words.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else if (HEX_GROUP.test(g)) {
        words.push(Number.parseInt(g, 16));
      } else {
        return `bad IPv6 group ${JSON.stringify(g)}`;
      }
    }
    return words;
  };

  const hasEllipsis = halves.length === 2;
  const head = toWords(halves[0] ?? "", !hasEllipsis);
  if (typeof head === "string") return head;
  const tail = hasEllipsis ? toWords(halves[1] ?? "", true) : [];
  if (typeof tail === "string") return tail;

  const given = head.length + tail.length;
  let words: number[];
  if (hasEllipsis) {
    // RFC 4291: '::' stands for one or more zero groups, never zero of them.
    if (given > 7) return "'::' must replace at least one group";
    words = [...head, ...new Array<number>(8 - given).fill(0), ...tail];
  } else {
    if (given !== 8) return `IPv6 needs 8 groups, got ${given}`;
    words = head;
  }
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  return out;
}

/**
 * Parses an IP literal into its raw bytes: 4 for IPv4, 16 for IPv6 (including IPv4-mapped
 * `::ffff:a.b.c.d`, which stays 16 bytes). An IPv6 zone (`%eth0`) is dropped.
 * @throws InvalidAddressError
 */
export function ipBytesFromString(text: string): Uint8Array {
  if (text.includes(":")) {
    const pct = text.indexOf("%");
    if (pct === text.length - 1) throw new InvalidAddressError(text, "empty IPv6 zone");
    const bytes = parseIPv6Bytes(pct === -1 ? text : text.slice(0, pct));
    if (typeof bytes === "string") throw new InvalidAddressError(text, bytes);
    return bytes;
  }
  const bytes = parseIPv4Bytes(text);
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
  if (bytes.length === 4) return Array.from(bytes).join(".");
  if (bytes.length !== 16)
    throw new RangeError(`an IP address has 4 or 16 bytes, got ${bytes.length}`);

  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));

  // RFC 5952, section 5: IPv4-mapped addresses keep the dotted tail.
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    return `::ffff:${Array.from(bytes.subarray(12)).join(".")}`;
  }

  // RFC 5952, section 4.2: compress the longest run of 2+ zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(":");
  if (bestStart === -1) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLen))}`;
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
