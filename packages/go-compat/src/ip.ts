// IP literals as Go's `net.ParseIP` reads them and `net.IP.String` prints them: the one IP
// grammar of the workspace (core's index keys, the proto encoder and the server's authorities
// all use it). Hand-written rather than `node:net`'s `isIP`, so the grammar is explicit, the
// bytes come out of the same pass, and a rejection says why.

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/**
 * The bytes of an IP literal without a zone (Go refuses zones): 4 for dotted IPv4, 16 for IPv6
 * (IPv4-mapped `::ffff:a.b.c.d` stays 16), or the reason `text` is not one. Leading zeros in an
 * IPv4 part are refused (as Go and node do), since some parsers read them as octal.
 */
export function parseIP(text: string): Uint8Array | string {
  return text.includes(":") ? parseIPv6(text) : (scanIPv4(text) ?? explainIPv4(text));
}

/**
 * Go's `net.ParseIP(text).String()`: dotted decimal for IPv4 and IPv4-mapped IPv6, RFC 5952
 * otherwise (lower case, the longest run of two or more zero groups compressed, the first on a
 * tie); undefined when `text` is not an IP literal.
 */
export function canonicalIP(text: string): string | undefined {
  if (!text.includes(":")) {
    // A valid dotted quad is its own canonical form: no bytes to format.
    return scanIPv4(text) === undefined ? undefined : text;
  }
  const bytes = parseIPv6(text);
  return typeof bytes === "string" ? undefined : formatIP(bytes);
}

/** Go's `net.IP.String()` of 4 or 16 bytes. */
export function formatIP(bytes: Uint8Array): string {
  if (bytes.length === 4) return dotted(bytes);
  if (bytes.length !== 16) {
    throw new RangeError(`an IP address has 4 or 16 bytes, got ${bytes.length}`);
  }
  if (isIPv4Mapped(bytes)) return dotted(bytes.subarray(12));
  return formatIPv6(bytes);
}

/** Whether 16 bytes are `::ffff:a.b.c.d`. */
export function isIPv4Mapped(bytes: Uint8Array): boolean {
  if (bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** 16 bytes as RFC 5952 groups. */
function formatIPv6(bytes: Uint8Array): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
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

function dotted(bytes: Uint8Array): string {
  return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
}

/**
 * The dotted-quad grammar in one pass over the characters, undefined for anything it refuses:
 * every endpoint IP goes through here, and splitting plus a regex per part showed in profiles.
 */
function scanIPv4(text: string): Uint8Array | undefined {
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

/** IPv6 text (no zone, no brackets) into 16 bytes, or the reason it is not IPv6. */
function parseIPv6(text: string): Uint8Array | string {
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
        const v4 = scanIPv4(g) ?? explainIPv4(g);
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
