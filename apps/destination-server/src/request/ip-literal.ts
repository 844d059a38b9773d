// IP literals as Go's `net.ParseIP` reads them (README "Authorities"): go-compat's grammar,
// which refuses zones as Go does.
import { canonicalIP } from "@destination/go-compat";

/**
 * The canonical text of an IP literal (compressed IPv6, IPv4-mapped as dotted IPv4: the keys
 * of every IP index), or undefined when `text` is a name.
 */
export function canonicalIpLiteral(text: string): string | undefined {
  // Every Get's host comes here: a name is told apart first by what no IP literal has (IPv6 has
  // a colon, IPv4 only digits and dots).
  if (!text.includes(":") && !IPV4_CHARACTERS.test(text)) return undefined;
  return canonicalIP(text);
}

const IPV4_CHARACTERS = /^[0-9.]+$/;
