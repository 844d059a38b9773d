// One authority audited: the audited server's first answer against the reference's.
import { ExitCode } from "../exit-code.js";
import { diffEndpoints, type EndpointDiff } from "./endpoint-diff.js";
import type { FirstAnswer } from "./first-answer.js";

export interface AuthorityAudit {
  readonly authority: string;
  readonly status: "ok" | "divergent";
  readonly diff: EndpointDiff;
  /** Why the answers differ or agree beyond endpoints: an error on either side. */
  readonly notes: readonly string[];
}

const NO_DIFF: EndpointDiff = { missing: [], extra: [], changed: [] };

/** Compares the answers; an error agrees only with the same kind of error (same exit code). */
export function auditAuthority(
  authority: string,
  expected: FirstAnswer,
  actual: FirstAnswer,
): AuthorityAudit {
  if (expected.kind === "failed" || actual.kind === "failed") {
    const say = (side: string, answer: FirstAnswer) =>
      answer.kind === "failed" ? `${side}: ${answer.failure.message}` : `${side}: endpoints`;
    const agree =
      expected.kind === "failed" &&
      actual.kind === "failed" &&
      expected.failure.exitCode === actual.failure.exitCode;
    return {
      authority,
      status: agree ? "ok" : "divergent",
      diff: NO_DIFF,
      notes: [say("expected", expected), say("server", actual)],
    };
  }
  const diff = diffEndpoints(expected.update, actual.update);
  const divergent = diff.missing.length + diff.extra.length + diff.changed.length > 0;
  return { authority, status: divergent ? "divergent" : "ok", diff, notes: [] };
}

/** An answer the audited server could not give at all: it is unreachable. */
export function isUnreachable(answer: FirstAnswer): boolean {
  return answer.kind === "failed" && answer.failure.exitCode === ExitCode.unreachable;
}
