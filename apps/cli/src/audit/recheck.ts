// Settle and recheck: a server and a fresh list can be a few events apart on a busy cluster, so
// an authority that diverges is asked again on both sides after the settle time, and only a
// divergence that persists is reported as one.
import type { AuthorityAudit } from "./authority-audit.js";

/** What the recheck found: not needed (or off), the divergence gone, or still there. */
export type RecheckOutcome = "none" | "gone" | "persists";

export interface CheckedAudit extends AuthorityAudit {
  readonly recheck: RecheckOutcome;
  /** The first check's divergence, when the recheck found it gone. */
  readonly first?: AuthorityAudit | undefined;
}

export interface RecheckSteps {
  /** Waits `ms`; may end early (Ctrl-C), then `stopped` says so and nothing is rechecked. */
  readonly sleep: (ms: number) => Promise<void>;
  readonly stopped: () => boolean;
  /** Brings the expected side up to date before the recheck. */
  readonly refresh: () => Promise<void>;
  /** Audits one authority again: new first answers from both sides. */
  readonly audit: (authority: string) => Promise<AuthorityAudit>;
  /** Called once before the wait with the authorities to recheck. */
  readonly onSettle?: ((authorities: readonly string[]) => void) | undefined;
}

/** `audits` with each divergent authority rechecked after `settleMs` (0: none rechecked). */
export async function recheckDivergent(
  audits: readonly AuthorityAudit[],
  settleMs: number,
  steps: RecheckSteps,
): Promise<CheckedAudit[]> {
  const divergent = audits.filter((audit) => audit.status !== "ok");
  const unchecked = audits.map((audit): CheckedAudit => ({ ...audit, recheck: "none" }));
  if (settleMs <= 0 || divergent.length === 0) return unchecked;
  steps.onSettle?.(divergent.map((audit) => audit.authority));
  await steps.sleep(settleMs);
  if (steps.stopped()) return unchecked;
  await steps.refresh();
  const again = new Map(
    await Promise.all(
      divergent.map(
        async (audit) => [audit.authority, await steps.audit(audit.authority)] as const,
      ),
    ),
  );
  return audits.map((audit): CheckedAudit => {
    const second = again.get(audit.authority);
    if (audit.status === "ok" || second === undefined) return { ...audit, recheck: "none" };
    return second.status === "ok"
      ? { ...second, recheck: "gone", first: audit }
      : { ...second, recheck: "persists" };
  });
}
