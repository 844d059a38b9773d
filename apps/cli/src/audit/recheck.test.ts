import { describe, expect, it } from "vitest";
import type { AuthorityAudit } from "./authority-audit.js";
import { type RecheckSteps, recheckDivergent } from "./recheck.js";

const audit = (
  authority: string,
  status: AuthorityAudit["status"],
  missing = 0,
): AuthorityAudit => ({
  authority,
  status,
  diff: {
    missing: Array.from({ length: missing }, (_, i) => ({ address: `10.0.0.${i}:80`, fields: [] })),
    extra: [],
    changed: [],
  },
  profile: { agrees: true, fields: [] },
  notes: [],
});

/** Steps that record what happened; `second` answers the recheck. */
function steps(second: Record<string, AuthorityAudit>, stopped = false) {
  const log: string[] = [];
  const recorded: RecheckSteps = {
    sleep: async (ms) => {
      log.push(`sleep ${ms}`);
    },
    stopped: () => stopped,
    refresh: async () => {
      log.push("refresh");
    },
    audit: async (authority) => {
      log.push(`audit ${authority}`);
      const answer = second[authority];
      if (answer === undefined) throw new Error(`unexpected recheck of ${authority}`);
      return answer;
    },
    onSettle: (authorities) => log.push(`settle ${authorities.join(",")}`),
  };
  return { log, recorded };
}

describe("recheckDivergent", () => {
  it("rechecks only the divergent authorities, after the settle time and a refresh", async () => {
    const first = [audit("a", "ok"), audit("b", "divergent", 1), audit("c", "divergent", 2)];
    const { log, recorded } = steps({ b: audit("b", "ok"), c: audit("c", "divergent", 1) });
    const checked = await recheckDivergent(first, 2000, recorded);
    expect(log).toEqual(["settle b,c", "sleep 2000", "refresh", "audit b", "audit c"]);
    expect(checked.map((c) => [c.authority, c.status, c.recheck])).toEqual([
      ["a", "ok", "none"],
      ["b", "ok", "gone"],
      ["c", "divergent", "persists"],
    ]);
    // A divergence that went away keeps what the first check saw; one that persists is the
    // recheck's.
    expect(checked[1]?.first?.diff.missing).toHaveLength(1);
    expect(checked[2]?.diff.missing).toHaveLength(1);
  });

  it("settle 0: the first check is the answer", async () => {
    const { log, recorded } = steps({});
    const checked = await recheckDivergent([audit("b", "divergent", 1)], 0, recorded);
    expect(log).toEqual([]);
    expect(checked[0]).toMatchObject({ status: "divergent", recheck: "none" });
  });

  it("nothing diverges: no wait", async () => {
    const { log, recorded } = steps({});
    expect(await recheckDivergent([audit("a", "ok")], 2000, recorded)).toHaveLength(1);
    expect(log).toEqual([]);
  });

  it("interrupted during the wait: nothing is rechecked", async () => {
    const { log, recorded } = steps({}, true);
    const checked = await recheckDivergent([audit("b", "divergent", 1)], 2000, recorded);
    expect(log).toEqual(["settle b", "sleep 2000"]);
    expect(checked[0]?.recheck).toBe("none");
  });
});
