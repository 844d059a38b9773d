import {
  type Address,
  type AddressId,
  type AddressSet,
  addressIdKey,
  newAddress,
} from "@destination/core";
import {
  equals,
  tcpAddressToString,
  type Update,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";
import { meshedPod, unmeshedPod } from "@destination/test-support/builders";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectingSink, config } from "../../test/support/fixtures.js";
import { EndpointTranslation, EndpointTranslator } from "./endpoint-translator.js";

// One endpoint as a test case describes it; any field change makes it a "changed" address.
interface EndpointSpec {
  id: number;
  kind: "meshed" | "unmeshed" | "podless" | "fqdn" | "broken";
  ipVariant: number;
  ipv6: boolean;
  port: number;
  opaque: boolean;
  zone: string | null;
  resourceVersion: number;
}

// Ids 0–3 may switch between translatable kinds. An endpoint that later fails translation is
// left as the proxy last saw it (the empty add is not sent, as upstream's is empty too), so
// untranslatable kinds are tied to their own ids: 4 is an FQDN, 5 a meshed pod without env.
const endpointSpec = fc.record<EndpointSpec>({
  id: fc.integer({ min: 0, max: 5 }),
  kind: fc.constantFrom("meshed", "unmeshed", "podless"),
  ipVariant: fc.integer({ min: 0, max: 2 }),
  ipv6: fc.boolean(),
  port: fc.constantFrom(80, 4191, 8080),
  opaque: fc.boolean(),
  zone: fc.constantFrom(null, "east", "west"),
  resourceVersion: fc.integer({ min: 1, max: 3 }),
});
const snapshots = fc.array(
  fc.uniqueArray(
    endpointSpec.map(
      (e): EndpointSpec =>
        e.id === 4 ? { ...e, kind: "fqdn" } : e.id === 5 ? { ...e, kind: "broken" } : e,
    ),
    { selector: (e) => e.id, maxLength: 6 },
  ),
  { minLength: 1, maxLength: 8 },
);

// Each id owns its IPs, so no two endpoints of a snapshot share an ip:port.
function ipOf(e: EndpointSpec): string {
  if (e.kind === "fqdn") return `svc-${e.id}-${e.ipVariant}.example.com`;
  // Written in canonical form, so that it reads back the same from the wire.
  return e.ipv6 ? `fd00::${e.id + 1}:${e.ipVariant + 1}` : `10.${e.id}.${e.ipVariant}.1`;
}

function toAddress(e: EndpointSpec): Address {
  const ip = ipOf(e);
  const common = { ip, port: e.port, opaqueProtocol: e.opaque, zone: e.zone };
  if (e.kind === "podless" || e.kind === "fqdn") {
    return newAddress({ ...common, identity: e.opaque ? "gateway.identity" : "" });
  }
  const name = `pod-${e.id}`;
  const pod =
    e.kind === "unmeshed"
      ? unmeshedPod(name)
      : meshedPod(name, e.kind === "broken" ? { env: [] } : {});
  pod.metadata.resourceVersion = String(e.resourceVersion);
  return newAddress({ ...common, pod, ownerKind: "deployment", ownerName: "web" });
}

function setOf(entries: [number, Address][]): AddressSet {
  const addresses = new Map<string, { id: AddressId; address: Address }>();
  for (const [n, address] of entries) {
    const id: AddressId = { namespace: "ns", name: `ep-${n}`, ipFamily: "" };
    addresses.set(addressIdKey(id), { id, address });
  }
  return Object.freeze({ addresses, labels: { namespace: "ns", service: "web" } });
}

/**
 * A stand-in for the endpoints watcher's diffing, including our fix for an address whose IP or
 * port changed: adds (new or changed addresses) first, then removes (gone addresses, and the old
 * ip:port of a moved one).
 */
function* publishDiffs(specs: EndpointSpec[][]): Generator<["add" | "remove", AddressSet]> {
  let previous = new Map<number, [EndpointSpec, Address]>();
  for (const snapshot of specs) {
    const current = new Map(
      snapshot.map((e) => [e.id, [e, toAddress(e)] as [EndpointSpec, Address]]),
    );
    const added: [number, Address][] = [];
    const removed: [number, Address][] = [];
    for (const [id, [spec, address]] of current) {
      const before = previous.get(id);
      if (before === undefined || JSON.stringify(before[0]) !== JSON.stringify(spec)) {
        added.push([id, address]);
      }
      if (
        before !== undefined &&
        (before[1].ip !== address.ip || before[1].port !== address.port)
      ) {
        removed.push([id, before[1]]);
      }
    }
    for (const [id, [, address]] of previous) if (!current.has(id)) removed.push([id, address]);
    if (added.length > 0) yield ["add", setOf(added)];
    if (removed.length > 0) yield ["remove", setOf(removed)];
    previous = current;
  }
}

/** What a proxy holds after applying the updates: upserts by ip:port, removals by ip:port. */
function applyUpdates(updates: Update[]): Map<string, WeightedAddr> {
  const endpoints = new Map<string, WeightedAddr>();
  for (const { update } of updates) {
    if (update.case === "add") {
      for (const wa of update.value.addrs) {
        if (wa.addr) endpoints.set(tcpAddressToString(wa.addr), wa);
      }
    } else if (update.case === "remove") {
      for (const addr of update.value.addrs) endpoints.delete(tcpAddressToString(addr));
    }
  }
  return endpoints;
}

describe("EndpointTranslator over a diffing publisher", () => {
  it("leaves the proxy holding exactly the translated latest snapshot", () => {
    fc.assert(
      fc.property(snapshots, (specs) => {
        const translation = new EndpointTranslation(config).forZone("east");
        const sink = collectingSink<Update>();
        const translator = new EndpointTranslator(translation, sink);
        for (const [kind, set] of publishDiffs(specs)) translator[kind](set);

        const held = applyUpdates(sink.sent);
        const last = specs[specs.length - 1] ?? [];

        // Which endpoints survive translation, decided independently of the translator.
        const expectedKeys = last
          .filter((e) => e.kind !== "fqdn" && e.kind !== "broken")
          .map((e) => (e.ipv6 ? `[${ipOf(e)}]:${e.port}` : `${ipOf(e)}:${e.port}`))
          .sort();
        expect([...held.keys()].sort()).toEqual(expectedKeys);
        for (const e of last.filter((x) => x.kind === "meshed" || x.kind === "unmeshed")) {
          const key = e.ipv6 ? `[${ipOf(e)}]:${e.port}` : `${ipOf(e)}:${e.port}`;
          expect(held.get(key)?.metricLabels.pod).toBe(`pod-${e.id}`);
        }

        // And each one is what a full translation of the snapshot gives, field for field.
        const full = translation.addUpdate(setOf(last.map((e) => [e.id, toAddress(e)])));
        const fullAddrs = full?.update.case === "add" ? full.update.value.addrs : [];
        expect(fullAddrs).toHaveLength(held.size);
        for (const wa of fullAddrs) {
          const key = wa.addr ? tcpAddressToString(wa.addr) : "";
          const heldAddr = held.get(key);
          expect(heldAddr !== undefined && equals(WeightedAddrSchema, heldAddr, wa)).toBe(true);
        }
      }),
    );
  });
});
