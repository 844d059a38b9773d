import { isIPv6 } from "node:net";
import type { Service } from "@destination/core";

export type SliceAddressType = "IPv4" | "IPv6";

/**
 * The address types a Service gets slices of: those of its `ipFamilies`, or both when it names
 * none (a Service of a cluster before dual-stack). The order is the Service's.
 */
export function supportedAddressTypes(service: Service): SliceAddressType[] {
  const types = new Set<SliceAddressType>();
  for (const family of service.spec?.ipFamilies ?? []) {
    if (family === "IPv4") types.add("IPv4");
    else if (family === "IPv6") types.add("IPv6");
  }
  return types.size > 0 ? [...types] : ["IPv4", "IPv6"];
}

/**
 * The address type a workload IP belongs to. As upstream, only a valid IPv6 address that is not
 * an IPv4-mapped one counts as IPv6; anything else, unparseable text included, counts as IPv4.
 */
export function addressTypeOf(ip: string): SliceAddressType {
  if (!isIPv6(ip)) return "IPv4";
  // The URL parser writes an IPv6 host in its shortest form: `::ffff:` and two groups is mapped.
  let host: string;
  try {
    host = new URL(`http://[${ip}]/`).hostname;
  } catch {
    return "IPv4"; // a zone (`fe80::1%eth0`): Go does not parse it as an IP either
  }
  return /^\[::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/.test(host) ? "IPv4" : "IPv6";
}
