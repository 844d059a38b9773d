import { describe, expect, it } from "vitest";
import { parseLogFormatFlag, parseLogLevelFlag } from "./log-flags.js";

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
