// Go's `net.SplitHostPort` and `net.JoinHostPort`: request authorities, traffic-split
// authorities and listen addresses follow Go's rules exactly, so both the translators and the
// server use these. See README "Host and port".

/** The two halves of a `host:port`; the port is text, unchecked. */
export interface HostPort {
  readonly host: string;
  readonly port: string;
}

/**
 * Go's `net.SplitHostPort`: the port starts after the last colon; the host is bracketed when it
 * holds colons. Returns Go's error text, `address <input>: <why>`, instead of throwing, so
 * callers word their own errors around it (Go leaves out `address : ` for an empty input).
 */
export function splitHostPort(hostport: string): HostPort | string {
  const fail = (why: string) => `address ${hostport}: ${why}`;
  const missingPort = "missing port in address";
  const tooManyColons = "too many colons in address";
  const i = hostport.lastIndexOf(":");
  if (i < 0) return fail(missingPort);
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === hostport.length) return fail(missingPort);
    if (end + 1 !== i) {
      return fail(hostport[end + 1] === ":" ? tooManyColons : missingPort);
    }
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return fail(tooManyColons);
  }
  if (hostport.slice(j).includes("[")) return fail("unexpected '[' in address");
  if (hostport.slice(k).includes("]")) return fail("unexpected ']' in address");
  return { host, port: hostport.slice(i + 1) };
}

/** Go's `net.JoinHostPort`: a host with a colon (IPv6) is bracketed. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
