import { describe, expect, it } from "vitest";
import { parseContextToken } from "./context-token.js";

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return {
    lines,
    logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
  };
}

const empty = { ns: "", nodeName: "", pod: "" };

describe("parseContextToken", () => {
  it("gives an empty token for an empty string", () => {
    const { logger, lines } = recordingLogger();
    expect(parseContextToken("", logger)).toEqual(empty);
    expect(lines).toEqual([]);
  });

  it("reads the injector's JSON with its trailing newline", () => {
    const { logger } = recordingLogger();
    expect(
      parseContextToken('{"ns":"emojivoto", "nodeName":"node-a", "pod":"web-1"}\n', logger),
    ).toEqual({ ns: "emojivoto", nodeName: "node-a", pod: "web-1" });
  });

  it("matches keys case-insensitively and ignores unknown keys", () => {
    const { logger } = recordingLogger();
    expect(parseContextToken('  {"NS":"a","nodename":"n","POD":"p","x":1}  ', logger)).toEqual({
      ns: "a",
      nodeName: "n",
      pod: "p",
    });
  });

  it("treats JSON null as empty", () => {
    const { logger, lines } = recordingLogger();
    expect(parseContextToken("null", logger)).toEqual(empty);
    expect(lines).toEqual([]);
  });

  it("accepts the legacy ns:<x> form with a warning", () => {
    const { logger, lines } = recordingLogger();
    expect(parseContextToken("ns:emojivoto", logger)).toEqual({ ...empty, ns: "emojivoto" });
    expect(parseContextToken("ns:", logger)).toEqual(empty);
    expect(lines.map((l) => l.level)).toEqual(["warn", "warn"]);
  });

  it("logs an error and gives an empty token for anything else", () => {
    const { logger, lines } = recordingLogger();
    expect(parseContextToken("garbage", logger)).toEqual(empty);
    expect(parseContextToken("ns:a:b", logger)).toEqual(empty);
    expect(parseContextToken('{"ns":', logger)).toEqual(empty);
    expect(parseContextToken("[1]", logger)).toEqual(empty);
    expect(lines.map((l) => l.level)).toEqual(["error", "error", "error", "error"]);
  });

  it("keeps the fields that decoded when another has the wrong type (Go partial decode)", () => {
    const { logger, lines } = recordingLogger();
    expect(parseContextToken('{"nodeName":5,"ns":"a"}', logger)).toEqual({ ...empty, ns: "a" });
    expect(lines.map((l) => l.level)).toEqual(["error"]);
  });
});
