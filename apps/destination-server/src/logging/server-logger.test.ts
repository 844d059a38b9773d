import { describe, expect, it } from "vitest";
import { createServerLogger, parseLogFormatFlag, parseLogLevelFlag } from "./server-logger.js";

function capture() {
  const lines: string[] = [];
  return { lines, sink: { write: (line: string) => lines.push(line) } };
}

describe("createServerLogger", () => {
  it("writes JSON lines with level, message and fields", () => {
    const { lines, sink } = capture();
    const logger = createServerLogger({ format: "json", sink, fields: { component: "grpc" } });
    logger.info("stream started", { path: "web.ns.svc.cluster.local:80", n: 2 });
    const record = JSON.parse(lines[0] ?? "");
    expect(record).toMatchObject({
      level: "info",
      msg: "stream started",
      component: "grpc",
      path: "web.ns.svc.cluster.local:80",
      n: 2,
    });
    expect(typeof record.time).toBe("string");
  });

  it("writes text lines, quoting values that need it", () => {
    const { lines, sink } = capture();
    createServerLogger({ format: "text", sink }).warn("bad token", {
      token: "a b",
      error: new Error("x"),
    });
    expect(lines[0]).toMatch(/^time="[^"]+" level=warn msg="bad token" token="a b" error=x\n$/);
  });

  it("drops lines below the level and reports what is enabled", () => {
    const { lines, sink } = capture();
    const logger = createServerLogger({ level: "warn", sink });
    logger.info("hidden");
    logger.debug("hidden");
    logger.error("shown");
    expect(lines).toHaveLength(1);
    expect(logger.enabled("debug")).toBe(false);
    expect(logger.enabled("error")).toBe(true);
  });

  it("adds child fields", () => {
    const { lines, sink } = capture();
    createServerLogger({ format: "json", sink }).child({ stream: 7 }).error("x");
    expect(JSON.parse(lines[0] ?? "").stream).toBe(7);
  });
});

describe("parseLogLevelFlag", () => {
  it("takes logrus' names in any case, warning as warn", () => {
    expect(
      ["panic", "FATAL", "Error", "warn", "WARNING", "info", "debug", "Trace"].map(
        parseLogLevelFlag,
      ),
    ).toEqual(["panic", "fatal", "error", "warn", "warn", "info", "debug", "trace"]);
  });

  it("refuses anything else", () => {
    for (const text of ["", "bogus", " info", "warnings", "verbose"]) {
      expect(parseLogLevelFlag(text)).toBeUndefined();
    }
  });
});

describe("parseLogFormatFlag", () => {
  it("is json for exactly json and plain otherwise", () => {
    expect(parseLogFormatFlag("json")).toEqual({ format: "json", known: true });
    expect(parseLogFormatFlag("plain")).toEqual({ format: "text", known: true });
    expect(parseLogFormatFlag("text")).toEqual({ format: "text", known: true });
    for (const text of ["JSON", "xml", ""]) {
      expect(parseLogFormatFlag(text)).toEqual({ format: "text", known: false });
    }
  });
});
