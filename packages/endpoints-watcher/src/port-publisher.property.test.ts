import type { AddressSetEntry } from "@destination/core";
import { NS, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { harness, type RecordingListener } from "../test/support/fixtures.js";

type Family = "IPv4" | "IPv6";

interface Member {
  readonly pod: number;
  readonly ready: boolean | null;
  readonly hint: string | null;
}

type Step =
  | {
      readonly kind: "apply";
      readonly slice: number;
      readonly family: Family;
      readonly members: Member[];
    }
  | { readonly kind: "delete"; readonly slice: number };

const PODS = 3;
const SLICES = 3;
const ipOf = (podIndex: number, family: Family) =>
  family === "IPv4" ? `10.0.0.${podIndex + 1}` : `fd00::${podIndex + 1}`;

const member: fc.Arbitrary<Member> = fc.record({
  pod: fc.integer({ min: 0, max: PODS - 1 }),
  ready: fc.constantFrom(true, false, null),
  hint: fc.constantFrom(null, "zone-a", "zone-b"),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("apply" as const),
      slice: fc.integer({ min: 0, max: SLICES - 1 }),
      family: fc.constantFrom<Family>("IPv4", "IPv6"),
      members: fc.uniqueArray(member, { maxLength: PODS, selector: (m) => m.pod }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("delete" as const),
      slice: fc.integer({ min: 0, max: SLICES - 1 }),
    }),
  },
);

/** What a listener must be able to tell apart: ID, socket and hints (compared on a change). */
function describeHeld(key: string, entry: AddressSetEntry): string {
  const hints = entry.address.forZones
    .map((z) => z.name)
    .sort()
    .join(",");
  return `${key} ${entry.address.ip}:${entry.address.port} [${hints}]`;
}

/**
 * The set a subscriber must hold, computed from scratch: ready endpoints of the live slices,
 * the most recently changed slice winning per ID, then the IPv6 preference for dual-stack
 * workloads.
 */
function expected(
  live: Map<number, { family: Family; members: Member[]; changedAt: number }>,
  enableIPv6: boolean,
): string[] {
  const union = new Map<
    string,
    { ip: string; hint: string | null; changedAt: number; family: Family; pod: number }
  >();
  for (const s of live.values()) {
    for (const m of s.members) {
      if (m.ready === false) continue;
      const key = `${NS}/web-${m.pod}/${s.family}`;
      const current = union.get(key);
      if (current === undefined || current.changedAt < s.changedAt) {
        union.set(key, {
          ip: ipOf(m.pod, s.family),
          hint: m.hint,
          changedAt: s.changedAt,
          family: s.family,
          pod: m.pod,
        });
      }
    }
  }
  const out: string[] = [];
  for (const [key, a] of union) {
    if (a.family === "IPv6" && !enableIPv6) continue;
    if (a.family === "IPv4" && enableIPv6 && union.has(`${NS}/web-${a.pod}/IPv6`)) continue;
    out.push(`${key} ${a.ip}:8080 [${a.hint ?? ""}]`);
  }
  return out.sort();
}

function held(listener: RecordingListener): string[] {
  return [...listener.held].map(([key, entry]) => describeHeld(key, entry)).sort();
}

describe("slice bookkeeping, property", () => {
  it("after every slice add, update or delete the listener holds the union of the live slices, and no call is empty", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 25 }),
        (enableIPv6, steps) => {
          const h = harness({ enableIPv6 });
          h.cluster.apply(service("web"));
          for (let i = 0; i < PODS; i++) {
            h.cluster.apply(pod(`web-${i}`, { ip: [ipOf(i, "IPv4"), ipOf(i, "IPv6")] }));
          }
          const listener = h.listen();
          const live = new Map<number, { family: Family; members: Member[]; changedAt: number }>();

          steps.forEach((s, index) => {
            if (s.kind === "delete") {
              h.cluster.delete("EndpointSlice", NS, `web-${s.slice}`);
              live.delete(s.slice);
            } else {
              const endpoints = s.members.map((m) =>
                podEndpoint(`web-${m.pod}`, ipOf(m.pod, s.family), {
                  ready: m.ready,
                  ...(m.hint === null ? {} : { forZones: [m.hint] }),
                }),
              );
              h.cluster.apply(slice(`web-${s.slice}`, "web", endpoints, { addressType: s.family }));
              live.set(s.slice, { family: s.family, members: s.members, changedAt: index });
            }
            expect(held(listener)).toEqual(expected(live, enableIPv6));
          });

          for (const { set } of listener.sets) expect(set.addresses.size).toBeGreaterThan(0);
          // A subscriber joining now is primed to the same set.
          const late = h.listen({
            port: 80,
            key: { hostname: "", nodeName: "", enableEndpointFiltering: true },
          });
          expect(held(late)).toEqual(expected(live, enableIPv6));
        },
      ),
      { numRuns: 300 },
    );
  });
});
