import { describe, expect, it } from "vitest";
import { FlagError, type FlagSpec, formatUsage, HelpRequested, parseGoFlags } from "./flags.js";

const SPECS: readonly FlagSpec[] = [
  { name: "addr", kind: "string", default: ":8086", usage: "address to serve on" },
  { name: "enable-ipv6", kind: "bool", default: "false", usage: "serve IPv6 addresses" },
  { name: "workers", kind: "int", default: "4", usage: "worker count" },
  { name: "ratio", kind: "float", default: "0.5", usage: "a ratio" },
];

describe("parseGoFlags", () => {
  it("fills in defaults for flags not given", () => {
    expect(parseGoFlags(SPECS, [])).toEqual({
      addr: ":8086",
      "enable-ipv6": false,
      workers: 4,
      ratio: 0.5,
    });
  });

  it("reads -name value, --name value and -name=value alike", () => {
    expect(parseGoFlags(SPECS, ["-addr", ":1"]).addr).toBe(":1");
    expect(parseGoFlags(SPECS, ["--addr", ":2"]).addr).toBe(":2");
    expect(parseGoFlags(SPECS, ["-addr=:3"]).addr).toBe(":3");
    expect(parseGoFlags(SPECS, ["--workers=7"]).workers).toBe(7);
  });

  it("takes a bare boolean as true and reads Go's boolean spellings after =", () => {
    expect(parseGoFlags(SPECS, ["-enable-ipv6"])["enable-ipv6"]).toBe(true);
    expect(parseGoFlags(SPECS, ["-enable-ipv6=F"])["enable-ipv6"]).toBe(false);
    expect(parseGoFlags(SPECS, ["-enable-ipv6=True"])["enable-ipv6"]).toBe(true);
  });

  it("rejects a positional argument, which Go would take as the end of the flags", () => {
    expect(() => parseGoFlags(SPECS, ["-enable-ipv6", "false"])).toThrow(
      new FlagError("unexpected argument: false"),
    );
  });

  it("words errors as Go's flag package does", () => {
    expect(() => parseGoFlags(SPECS, ["-nope"])).toThrow(
      new FlagError("flag provided but not defined: -nope"),
    );
    expect(() => parseGoFlags(SPECS, ["-addr"])).toThrow(
      new FlagError("flag needs an argument: -addr"),
    );
    expect(() => parseGoFlags(SPECS, ["-workers=1.5"])).toThrow(
      new FlagError('invalid value "1.5" for flag -workers: parse error'),
    );
    expect(() => parseGoFlags(SPECS, ["---addr"])).toThrow(
      new FlagError("bad flag syntax: ---addr"),
    );
  });

  it("asks for help on -h and --help", () => {
    expect(() => parseGoFlags(SPECS, ["-h"])).toThrow(HelpRequested);
    expect(() => parseGoFlags(SPECS, ["--help"])).toThrow(HelpRequested);
  });
});

describe("formatUsage", () => {
  it("lays out each flag as Go's PrintDefaults does, leaving out empty and false defaults", () => {
    expect(formatUsage("srv", SPECS)).toBe(
      [
        "Usage of srv:",
        "  -addr string",
        '    \taddress to serve on (default ":8086")',
        "  -enable-ipv6",
        "    \tserve IPv6 addresses",
        "  -workers int",
        "    \tworker count (default 4)",
        "  -ratio float",
        "    \ta ratio (default 0.5)",
        "",
      ].join("\n"),
    );
  });
});
