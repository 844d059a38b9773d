// One authority audited: the audited server's first Get and GetProfile answers against the
// reference's.
import type { DestinationProfile, EndpointViewDifferences, Update } from "@destination/proto";
import { ExitCode } from "../exit-code.js";
import { diffEndpoints } from "./endpoint-diff.js";
import type { FirstAnswer } from "./first-answer.js";
import { diffProfiles } from "./profile-diff.js";

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
