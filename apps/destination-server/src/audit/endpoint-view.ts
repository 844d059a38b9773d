// What a proxy holds after a Get stream's messages: the endpoints currently announced, each with
// the values of the `add` that last announced it. The self-audit compares such views; so do the
// convergence check, the replica agreement test and the churn benchmark (end states, not sequences).
import {
  equals,
  fromJson,
  type JsonValue,
  tcpAddressToString,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";

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

  /** Applies one message, as decoded or as proto JSON (what `StreamRecorder` keeps). */
  apply(message: Update | JsonValue): void {
    const update = isUpdate(message) ? message : fromJson(UpdateSchema, message);
    this.#messages += 1;
    switch (update.update.case) {
      case "add": {
        // Shared, not copied: a sent message is never changed, and a witness stream's view
        // lives as long as the stream.
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

/** Whether two announcements of one endpoint say the same thing to a proxy. */
export function sameAnnouncement(a: AnnouncedEndpoint, b: AnnouncedEndpoint): boolean {
  return equals(WeightedAddrSchema, a.addr, b.addr) && sameLabels(a.setLabels, b.setLabels);
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
