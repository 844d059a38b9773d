import { isLogLevel, type LogFormat, type LogLevel } from "../logging/server-logger.js";

/**
 * What logrus' ParseLevel accepts (upstream parses `-log-level` with it): the names in any
 * case, and `warning` for `warn`. Undefined for anything else, which upstream refuses.
 */
export function parseLogLevelFlag(text: string): LogLevel | undefined {
  const name = text.toLowerCase();
  if (name === "warning") return "warn";
  return isLogLevel(name) ? name : undefined;
}

/**
 * Upstream logs JSON for exactly `json` and plain text for every other value (`JSON`, `xml`,
 * empty), without complaint; `known` says whether the value was one of the documented ones.
 */
export function parseLogFormatFlag(text: string): { format: LogFormat; known: boolean } {
  if (text === "json") return { format: "json", known: true };
  return { format: "text", known: text === "plain" || text === "text" };
}
