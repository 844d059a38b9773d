import type { Logger } from "@destination/core";

/** The caller context a proxy sends in `GetDestination.context_token` (README "Context token"). */
export interface ContextToken {
  readonly ns: string;
  readonly nodeName: string;
  readonly pod: string;
}

const FIELDS = ["ns", "nodeName", "pod"] as const;
type Field = (typeof FIELDS)[number];

// Go's case folding also maps the long s and the Kelvin sign onto ASCII letters.
function foldKey(key: string): string {
  return key.replaceAll("\u017f", "s").replaceAll("\u212a", "k").toLowerCase();
}

/** The struct field a JSON key lands in: an exact match first, then a case-insensitive one. */
function fieldOf(key: string): Field | undefined {
  const exact = FIELDS.find((f) => f === key);
  if (exact !== undefined) return exact;
  const folded = foldKey(key);
  return FIELDS.find((f) => f.toLowerCase() === folded);
}

/**
 * Go's `json.Unmarshal` into the token struct: a syntax error decodes nothing; a field of the
 * wrong type is skipped while the others are still decoded (the partial-decode quirk).
 */
function decodeJson(
  text: string,
): { token: Record<Field, string>; error?: string } | { error: string; syntax: true } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err), syntax: true };
  }
  const token: Record<Field, string> = { ns: "", nodeName: "", pod: "" };
  if (value === null) return { token };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { token, error: "cannot unmarshal into a context token object" };
  }
  let error: string | undefined;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const target = fieldOf(key);
    if (target === undefined || field === null) continue;
    if (typeof field === "string") token[target] = field;
    else error ??= `cannot unmarshal ${typeof field} into field ${target} of type string`;
  }
  return error === undefined ? { token } : { token, error };
}

/**
 * Tokens already decoded without error, by text: a proxy sends its one token (its node and pod)
 * on every Get, and decoding it per call showed in profiles of cold Gets. Bounded: emptied when
 * full.
 */
const decodedTokens = new Map<string, ContextToken>();
const DECODED_TOKENS_MAX = 4096;

/**
 * Parses a context token; never fails the request: JSON (case-insensitive keys), else the
 * legacy `ns:<namespace>` form with a warning, else an error log and whatever JSON decoded.
 */
export function parseContextToken(text: string, logger: Logger): ContextToken {
  const empty = { ns: "", nodeName: "", pod: "" };
  if (text === "") return empty;
  const known = decodedTokens.get(text);
  if (known !== undefined) return known;
  const decoded = decodeJson(text);
  if (decoded.error === undefined && "token" in decoded) {
    if (decodedTokens.size >= DECODED_TOKENS_MAX) decodedTokens.clear();
    const token = Object.freeze(decoded.token);
    decodedTokens.set(text, token);
    return token;
  }
  const partial = "token" in decoded ? decoded.token : empty;
  const parts = text.split(":");
  if (parts.length === 2 && parts[0] === "ns") {
    logger.warn("context token using old token format", { token: text });
    return { ...partial, ns: parts[1] ?? "" };
  }
  logger.error("context token is invalid", { token: text, error: decoded.error });
  return partial;
}
