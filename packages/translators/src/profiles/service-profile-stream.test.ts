import type { ProfileListener, ServiceProfile } from "@destination/core";
import { type DestinationProfile, DestinationProfileSchema, toJson } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { collectingSink } from "../../test/support/fixtures.js";
import { DEFAULT_SERVICE_PROFILE } from "./destination-profile.js";
import {
  createServiceProfileStream,
  DedupProfileListener,
  DefaultProfileListener,
  FallbackProfileListener,
  OpaquePortsMerge,
} from "./service-profile-stream.js";

const FQN = "books.default.svc.cluster.local";

function sp(namespace: string, resourceVersion = "1", uid = `${namespace}-uid`): ServiceProfile {
  return { metadata: { name: FQN, namespace, uid, resourceVersion }, spec: {} };
}

function recorder(): ProfileListener & { seen: (ServiceProfile | null)[] } {
  const seen: (ServiceProfile | null)[] = [];
  return { seen, update: (p) => seen.push(p) };
}

describe("FallbackProfileListener", () => {
  it("publishes nothing until both have reported, then prefers the primary", () => {
    const next = recorder();
    const fallback = new FallbackProfileListener(next);
    const client = sp("client");
    const server = sp("server");
    fallback.primary.update(client);
    expect(next.seen).toEqual([]);
    fallback.backup.update(server);
    expect(next.seen).toEqual([client]);
    fallback.primary.update(null);
    expect(next.seen).toEqual([client, server]);
    fallback.backup.update(null);
    expect(next.seen).toEqual([client, server, null]);
  });

  it("waits for the primary too when the backup reports first", () => {
    const next = recorder();
    const fallback = new FallbackProfileListener(next);
    fallback.backup.update(sp("server"));
    expect(next.seen).toEqual([]);
    fallback.primary.update(null);
    expect(next.seen).toEqual([sp("server")]);
  });
});

describe("DefaultProfileListener and DedupProfileListener", () => {
  it("replaces absence by the default profile and drops a repeated default", () => {
    const next = recorder();
    const listener = new DefaultProfileListener(new DedupProfileListener(next));
    listener.update(null);
    listener.update(null);
    expect(next.seen).toEqual([DEFAULT_SERVICE_PROFILE]);
  });

  it("drops the same object or the same uid and resourceVersion; a new version passes", () => {
    const next = recorder();
    const dedup = new DedupProfileListener(next);
    const v1 = sp("default", "1");
    dedup.update(v1);
    dedup.update(v1);
    dedup.update({ ...v1, metadata: { ...v1.metadata } });
    dedup.update(sp("default", "2"));
    dedup.update(null);
    dedup.update(null);
    dedup.update(sp("default", "2"));
    expect(next.seen.map((p) => p?.metadata.resourceVersion ?? null)).toEqual([
      "1",
      "2",
      null,
      "2",
    ]);
  });

  it("does not treat two objects without uid or resourceVersion as the same", () => {
    const next = recorder();
    const dedup = new DedupProfileListener(next);
    const bare = (): ServiceProfile => ({ metadata: { name: FQN, namespace: "default" } });
    const versionOnly = (): ServiceProfile => ({
      metadata: { name: FQN, namespace: "default", resourceVersion: "7" },
    });
    dedup.update(bare());
    dedup.update(bare());
    dedup.update(versionOnly());
    dedup.update(versionOnly());
    expect(next.seen).toHaveLength(4);
  });
});

describe("OpaquePortsMerge", () => {
  it("publishes only once a profile is known, then on every change of either side", () => {
    const seen: [ServiceProfile, number[] | undefined][] = [];
    const merge = new OpaquePortsMerge({
      update: (p, ports) => seen.push([p, ports && [...ports]]),
    });
    merge.updateService(new Set([8080]));
    expect(seen).toEqual([]);
    const p = sp("default");
    merge.update(p);
    merge.updateService(new Set([9090]));
    merge.updateService(new Set([9091]));
    expect(seen).toEqual([
      [p, [8080]],
      [p, [9090]],
      [p, [9091]],
    ]);
  });
});

describe("createServiceProfileStream", () => {
  const options = {
    fqn: FQN,
    service: { namespace: "default", name: "books" },
    port: 8080,
  };

  it("without a token namespace watches the service-namespace profile only", () => {
    const sink = collectingSink<DestinationProfile>();
    const stream = createServiceProfileStream({ ...options, tokenNamespace: "", sink });
    expect(stream.profileSubscriptions.map(({ id, role }) => ({ id, role }))).toEqual([
      { id: { namespace: "default", name: FQN }, role: "only" },
    ]);
  });

  it("with a token namespace watches the client's profile first, the service's as backup", () => {
    const sink = collectingSink<DestinationProfile>();
    const stream = createServiceProfileStream({ ...options, tokenNamespace: "client", sink });
    expect(stream.profileSubscriptions.map(({ id, role }) => ({ id, role }))).toEqual([
      { id: { namespace: "client", name: FQN }, role: "primary" },
      { id: { namespace: "default", name: FQN }, role: "backup" },
    ]);
  });

  it("runs fallback → default → dedup → opaque merge → translation, in that order", () => {
    const sink = collectingSink<DestinationProfile>();
    const stream = createServiceProfileStream({ ...options, tokenNamespace: "client", sink });
    const [primary, backup] = stream.profileSubscriptions.map((s) => s.listener);
    const summary = () =>
      sink.sent.map((m) => {
        const j = toJson(DestinationProfileSchema, m) as {
          opaqueProtocol?: boolean;
          profileRef?: { resource?: { namespace?: string } };
        };
        return [j.profileRef?.resource?.namespace ?? "<default>", j.opaqueProtocol ?? false];
      });

    // The subscription order the README prescribes: opaque ports first, then the profiles.
    stream.opaquePortsListener.updateService(new Set([8080]));
    primary?.update(null);
    expect(sink.sent).toEqual([]);
    backup?.update(null);
    expect(summary()).toEqual([["<default>", true]]);

    // A resync of "still nothing" is dropped by dedup.
    backup?.update(null);
    const server = sp("default");
    backup?.update(server);
    backup?.update(server);
    const client = sp("client");
    primary?.update(client);
    stream.opaquePortsListener.updateService(new Set());
    primary?.update(null);
    expect(summary()).toEqual([
      ["<default>", true],
      ["default", true],
      ["client", true],
      ["client", false],
      ["default", false],
    ]);
  });

  it("an invalid first profile leaves the stream silent", () => {
    const sink = collectingSink<DestinationProfile>();
    const stream = createServiceProfileStream({ ...options, tokenNamespace: "", sink });
    stream.opaquePortsListener.updateService(new Set());
    stream.profileSubscriptions[0]?.listener.update({
      metadata: { name: FQN, namespace: "default", uid: "u", resourceVersion: "1" },
      spec: { routes: [null] },
    });
    expect(sink.sent).toEqual([]);
  });
});
