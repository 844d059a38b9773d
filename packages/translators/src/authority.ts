import { joinHostPort, splitHostPort } from "@destination/go-compat";

/**
 * A traffic-split authority as the proxy needs it (api.md §4.3): kept as written when it already
 * splits into host and port (the port text itself is not checked, so `foo:bar` stays), otherwise
 * completed with the requested port (an IPv6-looking host bracketed).
 */
export function completeAuthority(authority: string, port: number): string {
  if (typeof splitHostPort(authority) !== "string") return authority;
  return joinHostPort(authority, port);
}
