// `dst audit`'s output: one table row per authority, or one JSON object per authority.
import { DestinationProfileSchema, type JsonValue, WeightedAddrSchema } from "@destination/proto";
import { messageJson } from "../render/message-output.js";
import type { Styles } from "../render/styles.js";
import { formatTable } from "../render/text-table.js";
import type { AuthorityAudit } from "./authority-audit.js";
import type { CheckedAudit } from "./recheck.js";

function details(audit: AuthorityAudit): string {
  const parts = [
    ...audit.diff.missing.map((d) => `missing ${d.address}`),
    ...audit.diff.extra.map((d) => `extra ${d.address}`),
    ...audit.diff.changed.map((d) => `changed ${d.address} (${d.fields.join(", ")})`),
    ...(audit.profile.fields.length > 0 ? [`profile (${audit.profile.fields.join(", ")})`] : []),
    ...audit.notes,
  ];
  return parts.length === 0 ? "-" : parts.join("; ");
}

/** A divergence the recheck found gone still shows what the first check saw. */
function checkedDetails(audit: CheckedAudit): string {
  return audit.recheck === "gone" && audit.first !== undefined
    ? `first check: ${details(audit.first)}`
    : details(audit);
}

/** The RECHECK column and JSON `recheck`: "-" (none needed, or --settle 0), gone, persists. */
const recheckCell = (audit: CheckedAudit) => (audit.recheck === "none" ? "-" : audit.recheck);

export function formatAuditTable(audits: readonly CheckedAudit[], styles: Styles): string {
  return formatTable(
    ["AUTHORITY", "STATUS", "MISSING", "EXTRA", "CHANGED", "PROFILE", "RECHECK", "DETAILS"],
    audits.map((audit) => ({
      cells: [
        audit.authority,
        audit.status,
        String(audit.diff.missing.length),
        String(audit.diff.extra.length),
        String(audit.diff.changed.length),
        audit.profile.agrees ? "ok" : "differs",
        recheckCell(audit),
        checkedDetails(audit),
      ],
      style: audit.status === "ok" ? undefined : styles.red,
    })),
    styles.bold,
  );
}

const endpointJson = (addr: Parameters<typeof messageJson<typeof WeightedAddrSchema>>[1]) =>
  messageJson(WeightedAddrSchema, addr);

/** One authority as JSON: status, recheck, counts, and each differing endpoint with both sides;
 * a divergence the recheck found gone, as the first check saw it, under `first`. */
export function auditJson(audit: CheckedAudit): JsonValue {
  return {
    authority: audit.authority,
    status: audit.status,
    recheck: audit.recheck,
    ...differences(audit),
    ...(audit.recheck === "gone" && audit.first !== undefined
      ? { first: { status: audit.first.status, ...differences(audit.first) } }
      : {}),
  };
}

function differences(audit: AuthorityAudit): Record<string, JsonValue> {
  const { missing, extra, changed } = audit.diff;
  return {
    counts: { missing: missing.length, extra: extra.length, changed: changed.length },
    missing: missing.map((d) => ({
      address: d.address,
      ...(d.expected ? { expected: endpointJson(d.expected.addr) } : {}),
    })),
    extra: extra.map((d) => ({
      address: d.address,
      ...(d.held ? { actual: endpointJson(d.held.addr) } : {}),
    })),
    changed: changed.map((d) => ({
      address: d.address,
      fields: [...d.fields],
      ...(d.expected ? { expected: endpointJson(d.expected.addr) } : {}),
      ...(d.held ? { actual: endpointJson(d.held.addr) } : {}),
    })),
    profile: {
      status: audit.profile.agrees ? "ok" : "differs",
      fields: [...audit.profile.fields],
      ...(audit.profile.agrees || audit.profile.expected === undefined
        ? {}
        : { expected: messageJson(DestinationProfileSchema, audit.profile.expected) }),
      ...(audit.profile.agrees || audit.profile.actual === undefined
        ? {}
        : { actual: messageJson(DestinationProfileSchema, audit.profile.actual) }),
    },
    notes: [...audit.notes],
  };
}
