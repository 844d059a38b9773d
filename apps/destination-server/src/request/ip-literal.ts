// IP literals as Go's `net.ParseIP` reads them (README "Authorities"). Node's address grammar is
// Go's (no leading zeros in IPv4 octets, embedded IPv4 only in the last 32 bits, one `::` that
// stands for at least one group) except that it accepts zones, which Go's ParseIP refuses.
import { isIP } from "node:net";
import { canonicalIp } from "@destination/core";

/**
 * The canonical text of an IP literal (compressed IPv6, IPv4-mapped as dotted IPv4: the keys
 * of every IP index), or undefined when `text` is a name.
 */
export function canonicalIpLiteral(text: string): string | undefined {
  // Every Get's host comes here, and node's isIP runs a long IPv6 expression over a name: a name
  // is told apart first by what no IP literal has (IPv6 has a colon, IPv4 only digits and dots).
  if (!text.includes(":") && !IPV4_CHARACTERS.test(text)) return undefined;
  if (text.includes("%") || isIP(text) === 0) return undefined;
  return canonicalIp(text);
}

const IPV4_CHARACTERS = /^[0-9.]+$/;
