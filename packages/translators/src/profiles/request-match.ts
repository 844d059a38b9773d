import type { RequestMatch as RequestMatchSpec } from "@destination/core";
import {
  create,
  PathMatchSchema,
  type RequestMatch,
  RequestMatch_SeqSchema,
  RequestMatchSchema,
} from "@destination/proto";
import { TranslationError } from "../translation-error.js";
import { toHttpMethod } from "./http-method.js";
import { buildSeqs, oneOrAll, type SeqOf, validateSeqs } from "./match-tree.js";
import { stringField } from "./spec-fields.js";

/**
 * The ServiceProfile rules for a request condition, checked over the whole tree before anything
 * is built so that the first error reported is the one upstream reports. A present list counts
 * as a set field even when empty.
 */
function validate(m: RequestMatchSpec): void {
  let set = validateSeqs(m, validate);
  if (stringField(m.method, "method") !== "") set = true;
  if (m.not != null) {
    set = true;
    validate(m.not);
  }
  if (stringField(m.pathRegex, "pathRegex") !== "") set = true;
  if (!set) throw new TranslationError("A request match must have a field set");
}

/** An `all` or `any` of request matches. */
const seq: SeqOf<RequestMatch> = (kind, matches) =>
  create(RequestMatchSchema, {
    match: { case: kind, value: create(RequestMatch_SeqSchema, { matches }) },
  });

function build(m: RequestMatchSpec): RequestMatch {
  // The order of this list is what the proxy sees inside an implicit `all`.
  const matches = buildSeqs(m, build, seq);
  const method = stringField(m.method, "method");
  if (method !== "") {
    matches.push(
      create(RequestMatchSchema, { match: { case: "method", value: toHttpMethod(method) } }),
    );
  }
  if (m.not != null) {
    matches.push(create(RequestMatchSchema, { match: { case: "not", value: build(m.not) } }));
  }
  const pathRegex = stringField(m.pathRegex, "pathRegex");
  if (pathRegex !== "") {
    const path = create(PathMatchSchema, { regex: pathRegex });
    matches.push(create(RequestMatchSchema, { match: { case: "path", value: path } }));
  }
  return oneOrAll(matches, seq);
}

/**
 * A route condition as the proxy matches it: one field becomes that match, several become an
 * `all` in the order all, any, method, not, path.
 * @throws TranslationError for an absent or invalid condition (the whole profile fails)
 */
export function toRequestMatch(condition: RequestMatchSpec | null | undefined): RequestMatch {
  if (condition == null) throw new TranslationError("missing request match");
  validate(condition);
  return build(condition);
}
