import {
  create,
  DestinationProfileSchema,
  HttpMethod_Registered,
  MetadataSchema,
  type RequestMatch,
  RequestMatchSchema,
  type ResponseMatch,
  ResponseMatchSchema,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import { booksProfile, meshedPod, WEB_IDENTITY } from "../../test/support/sample-messages.js";
import {
  formatProfile,
  metadataText,
  requestMatchText,
  responseMatchText,
} from "./profile-view.js";
import { plainStyles } from "./styles.js";

describe("formatProfile", () => {
  it("renders a ServiceProfile: routes, retry budget, traffic split and references", () => {
    expect(formatProfile(booksProfile, plainStyles)).toBe(
      [
        "fully qualified name  books.booksapp.svc.cluster.local",
        "opaque protocol       no",
        "retry budget          25% of requests, at least 5/s, ttl 30s",
        "parent                core/Service booksapp/books port 7002",
        "profile               linkerd.io/ServiceProfile booksapp/books.booksapp.svc.cluster.local",
        "routes:",
        "  CONDITION         NAME             RETRYABLE  TIMEOUT  RESPONSE CLASSES",
        "  GET /books/[^/]*  GET /books/{id}  yes        100ms    status 500-599 → failure",
        "  any(POST, PURGE)  writes           no         -        -",
        "dst overrides:",
        "  AUTHORITY                                 SHARE  WEIGHT",
        "  books-v1.booksapp.svc.cluster.local:7002  90%    9000",
        "  books-v2.booksapp.svc.cluster.local:7002  10%    1000",
        "",
      ].join("\n"),
    );
  });

  it("renders the default profile with its group-only profile ref and float32 ratio", () => {
    const profile = create(DestinationProfileSchema, {
      fullyQualifiedName: "web-svc.emojivoto.svc.cluster.local",
      opaqueProtocol: true,
      // 0.2 as float32, as it arrives on the wire.
      retryBudget: { retryRatio: Math.fround(0.2), minRetriesPerSecond: 10, ttl: { seconds: 10n } },
      parentRef: {
        kind: {
          case: "resource",
          value: {
            group: "core",
            kind: "Service",
            name: "web-svc",
            namespace: "emojivoto",
            port: 80,
          },
        },
      },
      profileRef: { kind: { case: "resource", value: { group: "linkerd.io" } } },
    });
    expect(formatProfile(profile, plainStyles)).toBe(
      [
        "fully qualified name  web-svc.emojivoto.svc.cluster.local",
        "opaque protocol       yes",
        "retry budget          20% of requests, at least 10/s, ttl 10s",
        "parent                core/Service emojivoto/web-svc port 80",
        "profile               linkerd.io (no ServiceProfile: default profile)",
        "routes: none",
        "dst overrides: none",
        "",
      ].join("\n"),
    );
  });

  it("renders an ip:port profile's endpoint with its labels, identity and hint", () => {
    const profile = create(DestinationProfileSchema, {
      opaqueProtocol: false,
      retryBudget: { retryRatio: Math.fround(0.2), minRetriesPerSecond: 10, ttl: { seconds: 10n } },
      endpoint: {
        ...meshedPod,
        metricLabels: { pod: "web-1", deployment: "web", namespace: "emojivoto" },
      },
    });
    const text = formatProfile(profile, plainStyles);
    expect(text).toContain("fully qualified name  -\n");
    expect(text).toContain("parent                -\n");
    expect(text).toContain(
      [
        "endpoint:",
        "  address        10.244.0.12:8080",
        "  pod            web-1",
        "  owner          deployment/web",
        `  identity       ${WEB_IDENTITY}`,
        "  protocol hint  h2",
        "  weight         10000",
        "  labels         deployment=web, namespace=emojivoto, pod=web-1",
        "",
      ].join("\n"),
    );
  });

  it("says so for the empty profile of an undefined port", () => {
    expect(formatProfile(create(DestinationProfileSchema), plainStyles)).toMatch(
      /^empty profile: /,
    );
  });

  it("shows each dst override's share of the total weight", () => {
    const profile = create(DestinationProfileSchema, {
      fullyQualifiedName: "a.b.svc.cluster.local",
      dstOverrides: [
        { authority: "a.b.svc.cluster.local:80", weight: 10000 },
        { authority: "c.b.svc.cluster.local:80", weight: 5000 },
      ],
    });
    expect(formatProfile(profile, plainStyles)).toContain(
      "  a.b.svc.cluster.local:80  66.67%  10000\n  c.b.svc.cluster.local:80  33.33%  5000\n",
    );
  });
});

describe("metadataText", () => {
  it("renders default metadata and absence", () => {
    expect(metadataText(create(MetadataSchema, { kind: { case: "default", value: "http" } }))).toBe(
      "default http",
    );
    expect(metadataText(undefined)).toBe("-");
  });
});

const path = (regex: string): RequestMatch =>
  create(RequestMatchSchema, { match: { case: "path", value: { regex } } });
const method = (m: HttpMethod_Registered): RequestMatch =>
  create(RequestMatchSchema, {
    match: { case: "method", value: { type: { case: "registered", value: m } } },
  });
const all = (...matches: RequestMatch[]) =>
  create(RequestMatchSchema, { match: { case: "all", value: { matches } } });
const status = (min: number, max: number): ResponseMatch =>
  create(ResponseMatchSchema, { match: { case: "status", value: { min, max } } });

describe("requestMatchText", () => {
  it("reads method + path as a request line", () => {
    expect(requestMatchText(all(method(HttpMethod_Registered.GET), path("/books/[^/]*")))).toBe(
      "GET /books/[^/]*",
    );
  });

  it("spells out nesting with all/any/not", () => {
    const nested = all(
      path("/api/.*"),
      create(RequestMatchSchema, {
        match: { case: "not", value: method(HttpMethod_Registered.DELETE) },
      }),
    );
    expect(requestMatchText(nested)).toBe("all(/api/.*, not(DELETE))");
    expect(
      requestMatchText(
        create(RequestMatchSchema, {
          match: {
            case: "any",
            value: { matches: [method(HttpMethod_Registered.PUT), path("/x")] },
          },
        }),
      ),
    ).toBe("any(PUT, /x)");
    expect(requestMatchText(all())).toBe("all()");
    expect(requestMatchText(path(""))).toBe('path ""');
    expect(requestMatchText(undefined)).toBe("(no condition)");
  });
});

describe("responseMatchText", () => {
  it.each([
    [500, 599, "status 500-599"],
    [404, 404, "status 404"],
    [500, 0, "status >=500"],
    [0, 299, "status <=299"],
    [0, 0, "any status"],
  ])("%d..%d → %s", (min, max, text) => {
    expect(responseMatchText(status(min, max))).toBe(text);
  });

  it("spells out nesting", () => {
    const notServerError = create(ResponseMatchSchema, {
      match: { case: "not", value: status(500, 599) },
    });
    const either = create(ResponseMatchSchema, {
      match: { case: "any", value: { matches: [status(429, 429), notServerError] } },
    });
    expect(responseMatchText(either)).toBe("any(status 429, not(status 500-599))");
  });
});
