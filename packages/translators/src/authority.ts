/**
 * Whether `hostport` splits into host and port under the rules of Go's `net.SplitHostPort`:
 * exactly one unbracketed colon, or a bracketed host followed by `:port`. The port text itself
 * is not checked, so `foo:bar` splits.
 */
function splitsAsHostPort(hostport: string): boolean {
  const colon = hostport.lastIndexOf(":");
  if (colon === -1) return false;
  let hostStart = 0;
  let afterHost = 0;
  if (hostport[0] === "[") {
    const close = hostport.indexOf("]");
    if (close === -1 || close + 1 !== colon) return false;
    hostStart = 1;
    afterHost = close + 1;
  } else if (hostport.slice(0, colon).includes(":")) {
    return false;
  }
  return !hostport.slice(hostStart).includes("[") && !hostport.slice(afterHost).includes("]");
}

/**
 * A traffic-split authority as the proxy needs it (api.md §4.3): kept as written when it already
 * names a port, otherwise completed with the requested port (an IPv6-looking host bracketed).
 */
export function completeAuthority(authority: string, port: number): string {
  if (splitsAsHostPort(authority)) return authority;
  return authority.includes(":") ? `[${authority}]:${port}` : `${authority}:${port}`;
}
