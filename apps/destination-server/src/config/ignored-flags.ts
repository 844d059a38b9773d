import type { Logger } from "@destination/core";
import type { FlagValues } from "@destination/go-compat";

/** A flag accepted for compatibility whose value this server cannot act on. */
interface IgnoredFlag {
  readonly name: string;
  /** Why the value has no effect, for the warning. */
  readonly why: string;
}

/**
 * Every accepted-but-ignored flag. A value other than the default is something the operator
 * asked for and will not get, so it is said once at start; a default asks for nothing.
 */
export const IGNORED_FLAGS: readonly IgnoredFlag[] = [
  { name: "trace-collector", why: "traces are not sent" },
  { name: "kube-apiclient-qps", why: "the Kubernetes client does not throttle" },
  { name: "kube-apiclient-burst", why: "the Kubernetes client does not throttle" },
];

/** Warns once per ignored flag whose value differs from its default. */
export function warnIgnoredFlags(
  values: FlagValues,
  defaults: FlagValues,
  logger: Pick<Logger, "warn">,
): void {
  for (const { name, why } of IGNORED_FLAGS) {
    if (values[name] === defaults[name]) continue;
    logger.warn(`-${name}=${String(values[name])} has no effect: ${why}`, { flag: name });
  }
}
