import type { ResponseMatch as ResponseMatchSpec } from "@destination/core";
import {
  create,
  HttpStatusRangeSchema,
  type ResponseMatch,
  ResponseMatch_SeqSchema,
  ResponseMatchSchema,
} from "@destination/proto";
import { TranslationError } from "../translation-error.js";
import { buildSeqs, oneOrAll, type SeqOf, validateSeqs } from "./match-tree.js";
import { uint32Field } from "./spec-fields.js";

const MIN_STATUS = 100;
const MAX_STATUS = 599;

/** The status range bounds, 0 meaning "unbounded" on that side. */
function statusBounds(status: NonNullable<ResponseMatchSpec["status"]>): {
  min: number;
  max: number;
} {
  return { min: uint32Field(status.min, "status.min"), max: uint32Field(status.max, "status.max") };
}

/** Checked over the whole tree first, in upstream's order, so the first error matches. */
function validate(m: ResponseMatchSpec): void {
  let set = validateSeqs(m, validate);
  if (m.status != null) {
    const { min, max } = statusBounds(m.status);
    const outside = (n: number) => n !== 0 && (n < MIN_STATUS || n > MAX_STATUS);
    if (outside(min)) {
      throw new TranslationError(
        `Range minimum must be between ${MIN_STATUS} and ${MAX_STATUS}, inclusive`,
      );
    }
    if (outside(max)) {
      throw new TranslationError(
        `Range maximum must be between ${MIN_STATUS} and ${MAX_STATUS}, inclusive`,
      );
    }
    if (min !== 0 && max !== 0 && max < min) {
      throw new TranslationError("Range maximum cannot be smaller than minimum");
    }
    set = true;
  }
  if (m.not != null) {
    set = true;
    validate(m.not);
  }
  if (!set) throw new TranslationError("A response match must have a field set");
}

/** An `all` or `any` of response matches. */
const seq: SeqOf<ResponseMatch> = (kind, matches) =>
  create(ResponseMatchSchema, {
    match: { case: kind, value: create(ResponseMatch_SeqSchema, { matches }) },
  });

function build(m: ResponseMatchSpec): ResponseMatch {
  const matches = buildSeqs(m, build, seq);
  if (m.status != null) {
    const status = create(HttpStatusRangeSchema, statusBounds(m.status));
    matches.push(create(ResponseMatchSchema, { match: { case: "status", value: status } }));
  }
  if (m.not != null) {
    matches.push(create(ResponseMatchSchema, { match: { case: "not", value: build(m.not) } }));
  }
  return oneOrAll(matches, seq);
}

/**
 * A response-class condition: fields in the order all, any, status, not; several become an
 * `all`.
 * @throws TranslationError for an absent or invalid condition (the whole profile fails)
 */
export function toResponseMatch(condition: ResponseMatchSpec | null | undefined): ResponseMatch {
  if (condition == null) throw new TranslationError("missing response match");
  validate(condition);
  return build(condition);
}
