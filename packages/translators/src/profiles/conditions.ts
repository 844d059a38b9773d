// Route and response-class conditions (README "Request and response conditions"): a
// ServiceProfile's request and response match trees, each checked whole, then built into the
// proxy's `RequestMatch` or `ResponseMatch`.
import type {
  RequestMatch as RequestMatchSpec,
  ResponseMatch as ResponseMatchSpec,
} from "@destination/core";
import {
  create,
  type HttpMethod,
  HttpMethod_Registered,
  HttpMethodSchema,
  HttpStatusRangeSchema,
  PathMatchSchema,
  type RequestMatch,
  RequestMatch_SeqSchema,
  RequestMatchSchema,
  type ResponseMatch,
  ResponseMatch_SeqSchema,
  ResponseMatchSchema,
} from "@destination/proto";
import { TranslationError } from "../contracts.js";
import { stringField, uint32Field } from "./spec-fields.js";

// What both kinds share: `all` and `any` lists of conditions of the same kind, checked and built
// first and in that order, and several set fields joined into an `all`. Each kind keeps its other
// fields, and their order, to itself.

/** A condition with `all` and `any` lists of conditions of its own kind. */
interface MatchTree<S> {
  all?: (S | null)[] | null;
  any?: (S | null)[] | null;
}

const SEQ_KINDS = ["all", "any"] as const;

type SeqKind = (typeof SEQ_KINDS)[number];

/** Wraps matches into an `all` or `any` match of their own message type. */
type SeqOf<M> = (kind: SeqKind, matches: M[]) => M;

/**
 * Validates the `all` children, then the `any` children; a null child fails the whole profile.
 * True when either list is present, even empty: a present list is a set field.
 */
function validateSeqs<S extends MatchTree<S>>(m: S, validate: (child: S) => void): boolean {
  let set = false;
  for (const kind of SEQ_KINDS) {
    const children = m[kind];
    if (children == null) continue;
    set = true;
    for (const child of children) {
      if (child == null) throw new TranslationError(`null condition "${kind}"`);
      validate(child);
    }
  }
  return set;
}

/** The `all` match, then the `any` match, of a validated condition: the first fields it sets. */
function buildSeqs<S extends MatchTree<S>, M>(m: S, build: (child: S) => M, seq: SeqOf<M>): M[] {
  const matches: M[] = [];
  for (const kind of SEQ_KINDS) {
    const children = m[kind];
    if (children == null) continue;
    matches.push(
      seq(
        kind,
        children.map((child) => build(child as S)),
      ),
    );
  }
  return matches;
}

/** A single set field is the match itself; several become an `all`, in the order given. */
function oneOrAll<M>(matches: M[], seq: SeqOf<M>): M {
  if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  return seq("all", matches);
}

// Request conditions.

const REGISTERED: ReadonlyMap<string, HttpMethod_Registered> = new Map([
  ["GET", HttpMethod_Registered.GET],
  ["POST", HttpMethod_Registered.POST],
  ["PUT", HttpMethod_Registered.PUT],
  ["DELETE", HttpMethod_Registered.DELETE],
  ["PATCH", HttpMethod_Registered.PATCH],
  ["OPTIONS", HttpMethod_Registered.OPTIONS],
  ["CONNECT", HttpMethod_Registered.CONNECT],
  ["HEAD", HttpMethod_Registered.HEAD],
  ["TRACE", HttpMethod_Registered.TRACE],
]);

/**
 * Upper-cases one code point at a time and keeps a character whose upper case is longer (`ß`
 * stays `ß`), as Go's strings.ToUpper does; String#toUpperCase would write `SS`.
 */
function goToUpper(text: string): string {
  let out = "";
  for (const ch of text) {
    const upper = ch.toUpperCase();
    out += [...upper].length === 1 ? upper : ch;
  }
  return out;
}

/** A ServiceProfile `method` as the proxy matches it: one of the nine known methods, or text. */
export function toHttpMethod(method: string): HttpMethod {
  const upper = goToUpper(method);
  const registered = REGISTERED.get(upper);
  return create(HttpMethodSchema, {
    type:
      registered === undefined
        ? { case: "unregistered", value: upper }
        : { case: "registered", value: registered },
  });
}

/**
 * The ServiceProfile rules for a request condition, checked over the whole tree before anything
 * is built so that the first error reported is the one upstream reports. A present list counts
 * as a set field even when empty.
 */
function validateRequest(m: RequestMatchSpec): void {
  let set = validateSeqs(m, validateRequest);
  if (stringField(m.method, "method") !== "") set = true;
  if (m.not != null) {
    set = true;
    validateRequest(m.not);
  }
  if (stringField(m.pathRegex, "pathRegex") !== "") set = true;
  if (!set) throw new TranslationError("A request match must have a field set");
}

/** An `all` or `any` of request matches. */
const requestSeq: SeqOf<RequestMatch> = (kind, matches) =>
  create(RequestMatchSchema, {
    match: { case: kind, value: create(RequestMatch_SeqSchema, { matches }) },
  });

function buildRequest(m: RequestMatchSpec): RequestMatch {
  // The order of this list is what the proxy sees inside an implicit `all`.
  const matches = buildSeqs(m, buildRequest, requestSeq);
  const method = stringField(m.method, "method");
  if (method !== "") {
    matches.push(
      create(RequestMatchSchema, { match: { case: "method", value: toHttpMethod(method) } }),
    );
  }
  if (m.not != null) {
    matches.push(
      create(RequestMatchSchema, { match: { case: "not", value: buildRequest(m.not) } }),
    );
  }
  const pathRegex = stringField(m.pathRegex, "pathRegex");
  if (pathRegex !== "") {
    const path = create(PathMatchSchema, { regex: pathRegex });
    matches.push(create(RequestMatchSchema, { match: { case: "path", value: path } }));
  }
  return oneOrAll(matches, requestSeq);
}

/**
 * A route condition as the proxy matches it: one field becomes that match, several become an
 * `all` in the order all, any, method, not, path.
 * @throws TranslationError for an absent or invalid condition (the whole profile fails)
 */
export function toRequestMatch(condition: RequestMatchSpec | null | undefined): RequestMatch {
  if (condition == null) throw new TranslationError("missing request match");
  validateRequest(condition);
  return buildRequest(condition);
}

// Response conditions.

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
function validateResponse(m: ResponseMatchSpec): void {
  let set = validateSeqs(m, validateResponse);
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
    validateResponse(m.not);
  }
  if (!set) throw new TranslationError("A response match must have a field set");
}

/** An `all` or `any` of response matches. */
const responseSeq: SeqOf<ResponseMatch> = (kind, matches) =>
  create(ResponseMatchSchema, {
    match: { case: kind, value: create(ResponseMatch_SeqSchema, { matches }) },
  });

function buildResponse(m: ResponseMatchSpec): ResponseMatch {
  const matches = buildSeqs(m, buildResponse, responseSeq);
  if (m.status != null) {
    const status = create(HttpStatusRangeSchema, statusBounds(m.status));
    matches.push(create(ResponseMatchSchema, { match: { case: "status", value: status } }));
  }
  if (m.not != null) {
    matches.push(
      create(ResponseMatchSchema, { match: { case: "not", value: buildResponse(m.not) } }),
    );
  }
  return oneOrAll(matches, responseSeq);
}

/**
 * A response-class condition: fields in the order all, any, status, not; several become an
 * `all`.
 * @throws TranslationError for an absent or invalid condition (the whole profile fails)
 */
export function toResponseMatch(condition: ResponseMatchSpec | null | undefined): ResponseMatch {
  if (condition == null) throw new TranslationError("missing response match");
  validateResponse(condition);
  return buildResponse(condition);
}
