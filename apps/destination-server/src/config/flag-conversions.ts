// The conversions the flags table's rows share; each throws the reason a value is refused.
import { parseGoDuration } from "@destination/go-compat";
import { parseListenAddress } from "./listen-address.js";

/** An empty value sets no option (no manifests, the default kubeconfig). */
export const unlessEmpty = (text: string): string | undefined => (text === "" ? undefined : text);

/** A Go listen address, kept as text: the server parses it again where it listens. */
export function listenAddress(text: string): string {
  parseListenAddress(text);
  return text;
}

/** A Go duration in milliseconds; negative ones are refused. */
export function milliseconds(text: string): number {
  let ms = -1;
  try {
    ms = Number(parseGoDuration(text)) / 1_000_000;
  } catch {
    // Refused below, as a negative one.
  }
  if (ms < 0) throw new Error("invalid duration");
  return ms;
}

export function greaterThanZero(n: number): number {
  if (n <= 0) throw new Error("must be greater than 0");
  return n;
}

export function notNegative(n: number): number {
  if (n < 0) throw new Error("must not be negative");
  return n;
}

/** An empty domain falls back to `cluster.local`, with a warning, as upstream. */
export function orClusterLocal(text: string, log: { warn(message: string): void }, name: string) {
  if (text !== "") return text;
  log.warn(`expected -${name} to be set, using cluster.local`);
  return "cluster.local";
}
