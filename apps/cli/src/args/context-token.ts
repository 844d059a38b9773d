// The context token a proxy sends (`LINKERD2_PROXY_DESTINATION_CONTEXT`), built from
// `--ns` / `--node` / `--pod` so an operator can ask as a given pod would.

export interface ContextTokenParts {
  readonly ns?: string | undefined;
  readonly nodeName?: string | undefined;
  readonly pod?: string | undefined;
}

/** `{"ns":…,"nodeName":…,"pod":…}` with only the given keys, in the injector's order; the empty
 * string (no token) when none is given. */
export function buildContextToken(parts: ContextTokenParts): string {
  const token: Record<string, string> = {};
  if (parts.ns !== undefined) token.ns = parts.ns;
  if (parts.nodeName !== undefined) token.nodeName = parts.nodeName;
  if (parts.pod !== undefined) token.pod = parts.pod;
  return Object.keys(token).length === 0 ? "" : JSON.stringify(token);
}
