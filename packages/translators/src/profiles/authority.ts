import { joinHostPort, splitHostPort } from "@destination/go-compat";

/**
 * A traffic-split authority as the proxy needs it: kept as written when it already splits into
 * host and port (the port text itself is not checked, so `foo:bar` stays), otherwise completed
 * with the requested port (an IPv6-looking host bracketed). See README "Traffic splits".
 */
export function completeAuthority(authority: string, port: number): string {
  if (typeof splitHostPort(authority) !== "string") return authority;
  return joinHostPort(authority, port);
}
