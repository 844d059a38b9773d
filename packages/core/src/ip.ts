import { canonicalIP } from "@destination/go-compat";

/**
 * The canonical text of an IP, as index keys and lookups use it, so any spelling of one IP finds
 * the same objects: Go's `net.ParseIP(ip).String()` (dotted IPv4, compressed lower-case IPv6,
 * IPv4-mapped IPv6 written as dotted IPv4) with a zone dropped. Returns undefined for text that
 * is not an IP (an FQDN, say).
 */
export function canonicalIp(text: string): string | undefined {
  const zone = text.indexOf("%");
  return canonicalIP(zone === -1 ? text : text.slice(0, zone));
}
