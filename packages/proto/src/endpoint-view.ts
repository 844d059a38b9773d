// What a proxy holds after a Get stream's messages, and how two such holdings differ. The
// server's self-audit, `dst audit`, the convergence check and the churn benchmark all compare
// end states this way (not message sequences).
import { equals, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { tcpAddressToString } from "./address.js";
import {
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "./gen/destination_pb.js";
import { differingFields } from "./message-fields.js";

/** One announced endpoint: the address as sent and the labels of the set it came in. */
export interface AnnouncedEndpoint {
  readonly addr: WeightedAddr;
  readonly setLabels: Readonly<Record<string, string>>;
}

/**
 * Folds `Update`s as a proxy does: an `add` upserts by `ip:port`, a `remove` drops by
 * `ip:port`, `noEndpoints` drops everything.
 */
export class EndpointView {
  readonly #endpoints = new Map<string, AnnouncedEndpoint>();
  #messages = 0;

  /** Applies one message, as decoded or as proto JSON (what a recorder keeps). */
  apply(message: Update | JsonValue): this {
    const update = isUpdate(message) ? message : fromJson(UpdateSchema, message);
    this.#messages += 1;
    switch (update.update.case) {
      case "add": {
        // Shared, not copied: a sent message is never changed, and a view can live as long as
        // its stream (the self-audit's witness does).
        const setLabels = update.update.value.metricLabels;
        for (const addr of update.update.value.addrs) {
          if (addr.addr === undefined) continue;
          this.#endpoints.set(tcpAddressToString(addr.addr), { addr, setLabels });
        }
        break;
      }
      case "remove":
        for (const addr of update.update.value.addrs) {
          this.#endpoints.delete(tcpAddressToString(addr));
        }
        break;
      case "noEndpoints":
        this.#endpoints.clear();
        break;
      default:
        break;
    }
    return this;
  }

  /** Messages applied so far. */
  get messages(): number {
    return this.#messages;
  }

  /** The announced endpoints by `ip:port`. */
  get endpoints(): ReadonlyMap<string, AnnouncedEndpoint> {
    return this.#endpoints;
  }

  /** The announced `ip:port`s, sorted. */
  addresses(): string[] {
    return [...this.#endpoints.keys()].sort();
  }
}

/** One endpoint two views disagree on. */
export interface EndpointDifference {
  readonly address: string;
  /** What the expected view announces (absent for an extra endpoint). */
  readonly expected?: AnnouncedEndpoint;
  /** What the held view announces (absent for a missing endpoint). */
  readonly held?: AnnouncedEndpoint;
  /** For a changed endpoint: the `WeightedAddr` fields that differ, and `setLabels`. */
  readonly fields: readonly string[];
}

export interface EndpointViewDifferences {
  /** Expected, not held. */
  readonly missing: readonly EndpointDifference[];
  /** Held, not expected. */
  readonly extra: readonly EndpointDifference[];
  /** Held with other values than expected. */
  readonly changed: readonly EndpointDifference[];
}

/** How `held` differs from `expected`, endpoint by endpoint, on everything a proxy receives. */
export function compareEndpointViews(
  expected: EndpointView,
  held: EndpointView,
): EndpointViewDifferences {
  const missing: EndpointDifference[] = [];
  const extra: EndpointDifference[] = [];
  const changed: EndpointDifference[] = [];
  for (const [address, want] of expected.endpoints) {
    const have = held.endpoints.get(address);
    if (have === undefined) missing.push({ address, expected: want, fields: [] });
    else if (!sameAnnouncement(have, want)) {
      changed.push({ address, expected: want, held: have, fields: announcementFields(want, have) });
    }
  }
  for (const [address, have] of held.endpoints) {
    if (!expected.endpoints.has(address)) extra.push({ address, held: have, fields: [] });
  }
  return { missing, extra, changed };
}

/** Whether two announcements of one endpoint say the same thing to a proxy. */
export function sameAnnouncement(a: AnnouncedEndpoint, b: AnnouncedEndpoint): boolean {
  return equals(WeightedAddrSchema, a.addr, b.addr) && sameLabels(a.setLabels, b.setLabels);
}

function announcementFields(expected: AnnouncedEndpoint, held: AnnouncedEndpoint): string[] {
  const fields = differingFields(WeightedAddrSchema, expected.addr, held.addr);
  if (!sameLabels(expected.setLabels, held.setLabels)) fields.push("setLabels");
  return fields;
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function isUpdate(message: Update | JsonValue): message is Update {
  return (
    typeof message === "object" &&
    message !== null &&
    !Array.isArray(message) &&
    (message as { $typeName?: unknown }).$typeName === UpdateSchema.typeName
  );
}
