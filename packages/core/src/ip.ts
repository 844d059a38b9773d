import { isIPv4, isIPv6 } from "node:net";

/**
 * The canonical text of an IP, as index keys and lookups use it, so any spelling of one IP finds the same objects: dotted IPv4,
 * compressed lower-case IPv6, IPv4-mapped IPv6 written as dotted IPv4, zones dropped.
 * Returns undefined for text that is not an IP (an FQDN, say).
 */
export function canonicalIp(text: string): string | undefined {
  const ip = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return undefined;
  // The URL parser applies the RFC 5952 compression rules.
  const compressed = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (mapped) {
    const hi = Number.parseInt(mapped[1] ?? "0", 16);
    const lo = Number.parseInt(mapped[2] ?? "0", 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return compressed;
}
