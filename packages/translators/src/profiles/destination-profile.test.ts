import type { ServiceProfile } from "@destination/core";
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  DurationSchema,
  toBinary,
  toJson,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import { collectingSink, recordingLogger } from "../../test/support/fixtures.js";
import {
  completeAuthority,
  DEFAULT_SERVICE_PROFILE,
  ProfileTranslator,
  portNotDefinedProfile,
} from "./destination-profile.js";

const FQN = "books.default.svc.cluster.local";
const TARGET = { fqn: FQN, service: { namespace: "default", name: "books" }, port: 8080 };
const DEFAULT_BUDGET = { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: "10s" };
const PARENT_REF = {
  resource: { group: "core", kind: "Service", name: "books", namespace: "default", port: 8080 },
};
const PROFILE_REF = {
  resource: { group: "linkerd.io", kind: "ServiceProfile", name: FQN, namespace: "default" },
};

function profile(spec: ServiceProfile["spec"], kind?: string): ServiceProfile {
  return {
    ...(kind === undefined ? {} : { kind }),
    metadata: { name: FQN, namespace: "default", uid: "u1", resourceVersion: "1" },
    spec,
  };
}

function translate(p: ServiceProfile, opaquePorts?: ReadonlySet<number>) {
  const sink = collectingSink<DestinationProfile>();
  const logger = recordingLogger();
  new ProfileTranslator(TARGET, sink, logger).update(p, opaquePorts);
  return {
    sent: sink.sent,
    json: sink.sent.map((m) => toJson(DestinationProfileSchema, m)),
    logger,
  };
}

describe("ProfileTranslator", () => {
  it("translates a route with its condition, response class, retryability and timeout", () => {
    const { json } = translate(
      profile(
        {
          routes: [
            {
              name: "GET /my/path",
              condition: { method: "GET", pathRegex: "/my/path" },
              responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
              isRetryable: true,
              timeout: "200ms",
            },
          ],
        },
        "ServiceProfile",
      ),
    );
    expect(json).toEqual([
      {
        fullyQualifiedName: FQN,
        routes: [
          {
            condition: {
              all: {
                matches: [{ method: { registered: "GET" } }, { path: { regex: "/my/path" } }],
              },
            },
            responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
            metricsLabels: { route: "GET /my/path" },
            isRetryable: true,
            timeout: "0.200s",
          },
        ],
        retryBudget: DEFAULT_BUDGET,
        parentRef: PARENT_REF,
        profileRef: PROFILE_REF,
      },
    ]);
  });

  it("encodes a 200ms timeout as {seconds: 0, nanos: 200000000}", () => {
    const { sent } = translate(
      profile({ routes: [{ name: "r", condition: { pathRegex: "/" }, timeout: "200ms" }] }),
    );
    expect(sent[0]?.routes[0]?.timeout).toEqual(
      create(DurationSchema, { seconds: 0n, nanos: 200_000_000 }),
    );
  });

  it("reads timeouts as Go durations; zero, empty or invalid leave the timeout absent", () => {
    const route = (timeout: string) => ({ name: timeout, condition: { pathRegex: "/" }, timeout });
    const { json, logger } = translate(
      profile({ routes: ["1h30m", "-1s", "1.5s", "0s", "", "1d"].map(route) }),
    );
    const routes = (json[0] as { routes: { timeout?: string }[] }).routes;
    expect(routes.map((r) => r.timeout)).toEqual([
      "5400s",
      "-1s",
      "1.500s",
      undefined,
      undefined,
      undefined,
    ]);
    // Only the unparsable one is logged, and the route is kept.
    expect(logger.entries).toMatchObject([{ level: "error", fields: { route: "1d" } }]);
  });

  it("takes the retry budget from the spec; a zero ttl is absent", () => {
    const budget = (ttl: string) =>
      profile({ retryBudget: { retryRatio: 0.3, minRetriesPerSecond: 5, ttl } });
    expect(translate(budget("1m")).json[0]).toMatchObject({
      retryBudget: { retryRatio: 0.3, minRetriesPerSecond: 5, ttl: "60s" },
    });
    expect(translate(budget("0")).json[0]).toHaveProperty("retryBudget", {
      retryRatio: 0.3,
      minRetriesPerSecond: 5,
    });
  });

  it.each(["", "10x", "1d"])("fails the whole profile on retry budget ttl %j", (ttl) => {
    const { sent, logger } = translate(
      profile({ retryBudget: { retryRatio: 0.3, minRetriesPerSecond: 5, ttl } }),
    );
    expect(sent).toEqual([]);
    expect(logger.entries).toMatchObject([{ level: "error", fields: { fqn: FQN, port: 8080 } }]);
  });

  it("completes dst override authorities with the port and converts quantity weights", () => {
    const { json } = translate(
      profile({
        dstOverrides: [
          { authority: "web-v2.ns.svc.cluster.local", weight: "1" },
          { authority: "web-v3.ns.svc.cluster.local:9090", weight: "500m" },
          { authority: "web-v4", weight: "0.5" },
          { authority: "web-v5", weight: "100" },
          { authority: "fd00::5", weight: 1 },
        ],
      }),
    );
    expect(json[0]).toHaveProperty("dstOverrides", [
      { authority: "web-v2.ns.svc.cluster.local:8080", weight: 10000 },
      { authority: "web-v3.ns.svc.cluster.local:9090", weight: 5000 },
      { authority: "web-v4:8080", weight: 5000 },
      { authority: "web-v5:8080", weight: 1000000 },
      { authority: "[fd00::5]:8080", weight: 10000 },
    ]);
  });

  it("fails the whole profile on a weight that is not a quantity", () => {
    const { sent } = translate(profile({ dstOverrides: [{ authority: "a", weight: "lots" }] }));
    expect(sent).toEqual([]);
  });

  it("sets opaque_protocol from the Service's set, ignoring the CRD's own opaquePorts", () => {
    const p = profile({ opaquePorts: ["8080"] });
    expect(translate(p, new Set([8080])).json[0]).toMatchObject({ opaqueProtocol: true });
    expect(translate(p, new Set([9090])).json[0]).not.toHaveProperty("opaqueProtocol");
    expect(translate(p, undefined).json[0]).not.toHaveProperty("opaqueProtocol");
  });

  it("sends the default profile with a profile_ref holding only the group", () => {
    const { json } = translate(DEFAULT_SERVICE_PROFILE, new Set([8080]));
    expect(json).toEqual([
      {
        fullyQualifiedName: FQN,
        opaqueProtocol: true,
        retryBudget: DEFAULT_BUDGET,
        parentRef: PARENT_REF,
        profileRef: { resource: { group: "linkerd.io" } },
      },
    ]);
  });

  it("always names the kind ServiceProfile, even when the object has no kind", () => {
    expect(translate(profile({})).json[0]).toHaveProperty("profileRef", PROFILE_REF);
  });

  it.each([
    ["a null route", { routes: [null] }],
    [
      "a null response class",
      { routes: [{ name: "r", condition: { pathRegex: "/" }, responseClasses: [null] }] },
    ],
    ["a null dst override", { dstOverrides: [null] }],
    ["a route without condition", { routes: [{ name: "r" }] }],
    [
      "a response class without condition",
      {
        routes: [
          { name: "r", condition: { pathRegex: "/" }, responseClasses: [{ isFailure: true }] },
        ],
      },
    ],
    ["an invalid request match", { routes: [{ name: "r", condition: { all: [null] } }] }],
    [
      "an invalid response match",
      {
        routes: [
          {
            name: "r",
            condition: { pathRegex: "/" },
            responseClasses: [{ condition: { status: { min: 1 } } }],
          },
        ],
      },
    ],
    [
      "a wrongly typed field",
      { routes: [{ name: "r", condition: { pathRegex: "/" }, timeout: 5 }] },
    ],
  ])("%s is logged and nothing is sent", (_, spec) => {
    const { sent, logger } = translate(profile(spec as ServiceProfile["spec"]));
    expect(sent).toEqual([]);
    expect(logger.entries).toMatchObject([
      { level: "error", message: "invalid ServiceProfile, no profile update sent" },
    ]);
  });

  it("never throws into the pipeline, even when the sink does", () => {
    const logger = recordingLogger();
    const t = new ProfileTranslator(
      TARGET,
      {
        send() {
          throw new Error("stream gone");
        },
      },
      logger,
    );
    expect(() => t.update(DEFAULT_SERVICE_PROFILE, undefined)).not.toThrow();
    expect(logger.entries).toMatchObject([{ level: "error", fields: { error: "stream gone" } }]);
  });
});

describe("portNotDefinedProfile", () => {
  it("is a completely empty profile, zero bytes on the wire", () => {
    const empty = portNotDefinedProfile();
    expect(toJson(DestinationProfileSchema, empty)).toEqual({});
    expect(toBinary(DestinationProfileSchema, empty)).toHaveLength(0);
  });
});

describe("completeAuthority", () => {
  it.each([
    ["web-v2.ns.svc.cluster.local", "web-v2.ns.svc.cluster.local:8080"],
    ["web-v2.ns.svc.cluster.local:9090", "web-v2.ns.svc.cluster.local:9090"],
    // The port text is not validated.
    ["foo:bar", "foo:bar"],
    ["foo:", "foo:"],
    ["[::1]:80", "[::1]:80"],
    // Too many colons: an IPv6-looking host is bracketed.
    ["::1", "[::1]:8080"],
    ["a:b:c", "[a:b:c]:8080"],
    // Bad brackets do not split either.
    ["[::1]", "[[::1]]:8080"],
    ["[::1]x:80", "[[::1]x:80]:8080"],
    ["a]b:80", "[a]b:80]:8080"],
    ["a]b", "a]b:8080"],
    ["", ":8080"],
  ])("%j → %j", (authority, completed) => {
    expect(completeAuthority(authority, 8080)).toBe(completed);
  });
});
