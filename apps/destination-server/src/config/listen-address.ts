import { splitHostPort } from "@destination/go-compat";

/** Where a server listens: `host` "" means every interface, `port` 0 a free port. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses Go-style listen addresses: `:8086`, `127.0.0.1:0`, `[::1]:9996`. */
export function parseListenAddress(text: string): ListenAddress {
  const split = splitHostPort(text);
  if (typeof split === "string") throw new Error(split);
  if (!/^[0-9]{1,5}$/.test(split.port) || Number(split.port) > 65535) {
    throw new Error(`address ${text}: invalid port`);
  }
  return { host: split.host, port: Number(split.port) };
}
