import { Http2ClientParamsSchema, toJson } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { parseHttp2ClientParams } from "./http2-client-params.js";
import { CHART_MESHED_HTTP2_CLIENT_PARAMS } from "./server-flags.js";

const json = (text: string) => {
  const params = parseHttp2ClientParams(text);
  return params === undefined ? undefined : toJson(Http2ClientParamsSchema, params);
};

describe("parseHttp2ClientParams (Go encoding/json)", () => {
  it("leaves the params unset for an empty value", () => {
    expect(parseHttp2ClientParams("")).toBeUndefined();
  });

  it("decodes the chart default", () => {
    expect(json(CHART_MESHED_HTTP2_CLIENT_PARAMS)).toEqual({
      keepAlive: { interval: "10s", timeout: "3s", whileIdle: true },
    });
  });

  it("matches snake_case keys case-insensitively and ignores unknown keys", () => {
    expect(
      json(
        '{"FLOW_CONTROL":{"Initial_Stream_Window_Size":65535,"adaptive_flow_control":true},"internals":{"max_frame_size":16384},"other":1}',
      ),
    ).toEqual({
      flowControl: { initialStreamWindowSize: 65535, adaptiveFlowControl: true },
      internals: { maxFrameSize: 16384 },
    });
  });

  it("accepts camelCase keys and Go duration strings as an extension", () => {
    expect(json('{"keepAlive":{"interval":"1m30s","timeout":"1.5s","whileIdle":false}}')).toEqual({
      keepAlive: { interval: "90s", timeout: "1.500s" },
    });
  });

  it("reads duration strings with Go's exact rules: nanoseconds truncated, int64 bounded", () => {
    expect(json('{"keepAlive":{"interval":"1.1s","timeout":"1.9ns"}}')).toEqual({
      keepAlive: { interval: "1.100s", timeout: "0.000000001s" },
    });
    expect(() => parseHttp2ClientParams('{"keep_alive":{"timeout":"2562048h"}}')).toThrow(
      /keep_alive.timeout/,
    );
  });

  it("keeps nanos of duration objects", () => {
    expect(json('{"keep_alive":{"timeout":{"seconds":1,"nanos":500000000}}}')).toEqual({
      keepAlive: { timeout: "1.500s" },
    });
  });

  it("treats null as an empty but present value", () => {
    expect(json("null")).toEqual({});
    expect(json('{"keep_alive":null}')).toEqual({});
  });

  it("rejects invalid JSON and wrong types", () => {
    expect(() => parseHttp2ClientParams("{")).toThrow(/invalid JSON/);
    expect(() => parseHttp2ClientParams("[]")).toThrow(/cannot unmarshal array/);
    expect(() => parseHttp2ClientParams('{"keep_alive":{"while_idle":"yes"}}')).toThrow(
      /keep_alive.while_idle/,
    );
    expect(() => parseHttp2ClientParams('{"internals":{"max_frame_size":-1}}')).toThrow(
      /max_frame_size/,
    );
    expect(() => parseHttp2ClientParams('{"keep_alive":{"interval":"10x"}}')).toThrow(/interval/);
  });
});
