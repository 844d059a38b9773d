// One authority audited: the first Get and GetProfile answers of each server, and the audited
// server's compared with the reference's.
import {
  compareEndpointViews,
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  differingFields,
  EndpointView,
  type EndpointViewDifferences,
  type Update,
} from "@destination/proto";
import { type CliFailure, ExitCode } from "../exit-code.js";
import type {
  DestinationConnection,
  DestinationStream,
  MethodMessages,
} from "../grpc/destination-connection.js";

// The first complete answer of a stream: its first message, or nothing when the stream stays
// silent for the timeout (Get never sends "no endpoints"; GetProfile is silent on a rejected
// ServiceProfile), or how it failed.
export type FirstAnswer<Message> =
  | { readonly kind: "answered"; readonly message: Message | undefined }
  | { readonly kind: "failed"; readonly failure: CliFailure };

export async function firstAnswer<Method extends keyof MethodMessages>(
  connection: DestinationConnection,
  method: Method,
  authority: string,
  contextToken: string,
  /** Registers the stream for Ctrl-C (`InterruptGuard.track`). */
  track: (stream: DestinationStream) => DestinationStream,
): Promise<FirstAnswer<MethodMessages[Method]>> {
  let message: MethodMessages[Method] | undefined;
  const stream: DestinationStream = track(
    connection.open(method, authority, contextToken, {
      onMessage(first) {
        message = first;
        stream.cancel();
      },
      onQuiet() {
        stream.cancel();
      },
    }),
  );
  const end = await stream.ended;
  // A stream the server closed with OK before answering (shutdown) counts as silent.
  return end.kind === "failed" ? end : { kind: "answered", message };
}

/** Both sides' first answers to one method. */
export interface AnswerPair<Message> {
  readonly expected: FirstAnswer<Message>;
  readonly actual: FirstAnswer<Message>;
}

export interface ProfileAudit {
  readonly agrees: boolean;
  /** The fields that differ (proto JSON names), when both answered. */
  readonly fields: readonly string[];
  readonly expected?: DestinationProfile | undefined;
  readonly actual?: DestinationProfile | undefined;
}

export interface AuthorityAudit {
  readonly authority: string;
  readonly status: "ok" | "divergent";
  readonly diff: EndpointViewDifferences;
  readonly profile: ProfileAudit;
  /** Errors on either side, and whether they agree. */
  readonly notes: readonly string[];
}

const NO_DIFF: EndpointViewDifferences = { missing: [], extra: [], changed: [] };

/** An error agrees only with the same kind of error (the same exit code); notes name both. */
function failures<Message>(method: string, pair: AnswerPair<Message>) {
  const { expected, actual } = pair;
  const say = (side: string, answer: FirstAnswer<Message>) =>
    answer.kind === "failed"
      ? `${method} ${side}: ${answer.failure.message}`
      : `${method} ${side}: answered`;
  const agrees =
    expected.kind === "failed" &&
    actual.kind === "failed" &&
    expected.failure.exitCode === actual.failure.exitCode;
  return { agrees, notes: [say("expected", expected), say("server", actual)] };
}

export function auditAuthority(
  authority: string,
  get: AnswerPair<Update>,
  profile: AnswerPair<DestinationProfile>,
): AuthorityAudit {
  const notes: string[] = [];
  let diff = NO_DIFF;
  let getAgrees: boolean;
  if (get.expected.kind === "failed" || get.actual.kind === "failed") {
    const failed = failures("Get", get);
    getAgrees = failed.agrees;
    notes.push(...failed.notes);
  } else {
    diff = diffEndpoints(get.expected.message, get.actual.message);
    getAgrees = diff.missing.length + diff.extra.length + diff.changed.length === 0;
  }
  let profileAudit: ProfileAudit;
  if (profile.expected.kind === "failed" || profile.actual.kind === "failed") {
    const failed = failures("GetProfile", profile);
    profileAudit = { agrees: failed.agrees, fields: [] };
    notes.push(...failed.notes);
  } else {
    const fields = diffProfiles(profile.expected.message, profile.actual.message);
    profileAudit = {
      agrees: fields.length === 0,
      fields,
      expected: profile.expected.message,
      actual: profile.actual.message,
    };
  }
  const status = getAgrees && profileAudit.agrees ? "ok" : "divergent";
  return { authority, status, diff, profile: profileAudit, notes };
}

/** An answer the audited server could not give at all: it is unreachable. */
export function isUnreachable<Message>(answer: FirstAnswer<Message>): boolean {
  return answer.kind === "failed" && answer.failure.exitCode === ExitCode.unreachable;
}

// Two first answers to one Get, compared endpoint by endpoint as a proxy holds them: proto's
// `compareEndpointViews`, the comparison the server's self-audit makes too. "Held" is what the
// audited server answers, "expected" what the reference answers.
/** A first answer as a proxy holds it; `undefined` (a silent stream) holds nothing. */
const held = (update: Update | undefined) =>
  update === undefined ? new EndpointView() : new EndpointView().apply(update);

/** How `actual` (the audited server's first answer) differs from `expected` (the reference's). */
export function diffEndpoints(
  expected: Update | undefined,
  actual: Update | undefined,
): EndpointViewDifferences {
  return compareEndpointViews(held(expected), held(actual));
}

// Two first GetProfile answers compared field by field (opaque protocol, endpoint, routes, retry
// budget, dst overrides, refs), in proto JSON names.
/** The fields on which `actual` (the audited server's) differs from `expected`; silence is `{}`. */
export function diffProfiles(
  expected: DestinationProfile | undefined,
  actual: DestinationProfile | undefined,
): string[] {
  const empty = create(DestinationProfileSchema);
  const fields = differingFields(DestinationProfileSchema, expected ?? empty, actual ?? empty);
  // One side silent, the other not: say so even when the answer is the empty profile.
  if (fields.length === 0 && (expected === undefined) !== (actual === undefined)) {
    return [expected === undefined ? "(unexpected profile)" : "(no profile)"];
  }
  return fields;
}
