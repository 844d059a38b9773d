import { describe, expect, it } from "vitest";
import { debugEndpointsReply, parseServiceParam } from "./debug-endpoints.js";
import type { EndpointsReport } from "./endpoints-report.js";

const EMPTY: EndpointsReport = { service: null, endpointSlices: [], subscribers: null, notes: [] };
const query = (text: string) => new URLSearchParams(text);

describe("parseServiceParam", () => {
  it("reads namespace/name", () => {
    expect(parseServiceParam(query("service=emojivoto/web-svc"))).toEqual({
      namespace: "emojivoto",
      name: "web-svc",
    });
  });

  it.each([
    ["", /^missing query parameter/],
    ["service=", /^service must be NAMESPACE\/NAME/],
    ["service=web-svc", /not "web-svc"$/],
    ["service=a/b/c", /not "a\/b\/c"$/],
    ["service=Emojivoto/web", /not "Emojivoto\/web"$/],
    ["service=ns/1web", /not "ns\/1web"$/],
    ["service=ns/a&service=ns/b", /once/],
  ])("refuses %j", (text, message) => {
    expect(parseServiceParam(query(text))).toMatch(message);
  });
});

describe("debugEndpointsReply", () => {
  it("answers 400 with a JSON error for a bad parameter, before anything else", () => {
    expect(debugEndpointsReply(query("service=nope"), undefined)).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^service must be/) },
    });
  });

  it("answers 503 until the caches have synced", () => {
    expect(debugEndpointsReply(query("service=ns/web"), undefined).status).toBe(503);
  });

  it("answers 404 for an unknown Service and 200 with the report otherwise", () => {
    const asked: unknown[] = [];
    const reporter = (id: { namespace: string; name: string }) => {
      asked.push(id);
      return id.name === "web" ? EMPTY : undefined;
    };
    expect(debugEndpointsReply(query("service=ns/web"), reporter)).toEqual({
      status: 200,
      body: EMPTY,
    });
    expect(debugEndpointsReply(query("service=ns/gone"), reporter)).toEqual({
      status: 404,
      body: { error: "Service ns/gone not found (no Service, no EndpointSlices)" },
    });
    expect(asked).toEqual([
      { namespace: "ns", name: "web" },
      { namespace: "ns", name: "gone" },
    ]);
  });
});
