// Identity and order of an endpoint in a set: its ip:port, sorted numerically.
import { ipAddressToBytes, type TcpAddress, tcpAddressToString } from "@destination/proto";

/** `ip:port` (`[v6]:port`), or a placeholder for an address the server left without an IP. */
export function endpointKey(addr: TcpAddress | undefined): string {
  if (addr?.ip === undefined) return `?:${addr?.port ?? 0}`;
  try {
    return tcpAddressToString(addr);
  } catch {
    return `?:${addr.port}`;
  }
}

function ipBytes(addr: TcpAddress | undefined): Uint8Array {
  if (addr?.ip === undefined) return new Uint8Array();
  try {
    return ipAddressToBytes(addr.ip);
  } catch {
    return new Uint8Array();
  }
}

/** IPv4 before IPv6, then by address bytes, then by port. */
export function compareAddresses(a: TcpAddress | undefined, b: TcpAddress | undefined): number {
  const left = ipBytes(a);
  const right = ipBytes(b);
  if (left.length !== right.length) return left.length - right.length;
  for (let i = 0; i < left.length; i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return (a?.port ?? 0) - (b?.port ?? 0);
}
