import {
  InvalidAddressError,
  ipAddressFromBytes,
  ipBytesFromString,
  type TcpAddress,
} from "@destination/proto";
import { TranslationError } from "../contracts.js";

/** A proto address with the raw IP bytes kept beside it, for sorting. */
export interface EncodedAddress {
  readonly tcp: TcpAddress;
  readonly ipBytes: Uint8Array;
}

/**
 * `ip:port` as the proxy reads it. An FQDN endpoint or any other text that is not an IP literal
 * cannot be encoded.
 * @throws TranslationError
 */
export function encodeAddress(ip: string, port: number): EncodedAddress {
  let ipBytes: Uint8Array;
  try {
    ipBytes = ipBytesFromString(ip);
  } catch (err) {
    if (err instanceof InvalidAddressError) throw new TranslationError(err.message);
    throw err;
  }
  // The plain object `create(TcpAddressSchema, …)` would return, without its reflection.
  const tcp: TcpAddress = {
    $typeName: "io.linkerd.proxy.net.TcpAddress",
    ip: ipAddressFromBytes(ipBytes),
    port,
  };
  return { tcp, ipBytes };
}

/**
 * Orders IPv4 before IPv6, then by address bytes, then by port. Upstream sends Go map order;
 * a fixed order keeps messages, and the tests that read them, deterministic.
 */
export function compareEncodedAddresses(
  a: { readonly ipBytes: Uint8Array; readonly port: number },
  b: { readonly ipBytes: Uint8Array; readonly port: number },
): number {
  if (a.ipBytes.length !== b.ipBytes.length) return a.ipBytes.length - b.ipBytes.length;
  for (let i = 0; i < a.ipBytes.length; i++) {
    const d = (a.ipBytes[i] ?? 0) - (b.ipBytes[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.port - b.port;
}
