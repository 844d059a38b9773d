import { describe, expect, it } from "vitest";
import { listedSubcommands } from "./documented-programs.js";
import { checkFlags, gnuSpec, parseGoUsage } from "./program-flags.js";

const GO_USAGE = `Usage of destination-server:
  -addr string
    \taddress to serve on (default ":8086")
  -enable-ipv6
    \tserve IPv6 endpoints (default true)
`;

const DST_HELP = `dst: what the destination service tells proxies.

Usage:
  dst get AUTHORITY [flags]           endpoints of a service, live (Get)
  dst help [COMMAND]                  help for a command

Flags:
  --addr HOST:PORT        destination server gRPC address
  -o, --output FORMAT     table (default), json or yaml
  -h, --help              show this help
`;

const DST_GET_HELP = `Usage:
  dst get AUTHORITY [--once] [flags]

  --once                  print the first endpoint set and exit
`;

describe("Go-style flags", () => {
  const spec = parseGoUsage(GO_USAGE);

  it("accepts one or two dashes and =value, as Go's flag package does", () => {
    expect(checkFlags("srv", spec, ["--addr", "127.0.0.1:0", "-enable-ipv6=false", "-h"])).toEqual(
      [],
    );
  });

  it("names a flag the usage does not list", () => {
    expect(checkFlags("srv", spec, ["-enable-ipv7=false"])).toEqual([
      "srv has no flag -enable-ipv7",
    ]);
  });
});

describe("GNU-style flags with subcommands", () => {
  const subs = listedSubcommands("dst", DST_HELP);
  const spec = gnuSpec(DST_HELP, new Map(subs.map((s) => [s, DST_GET_HELP])));

  it("reads the subcommands off the usage lines, help aside", () => {
    expect(subs).toEqual(["get"]);
  });

  it("accepts global flags anywhere and a subcommand's own after it", () => {
    expect(checkFlags("dst", spec, ["--addr", "x:1", "get", "--once", "-o", "json", "a"])).toEqual(
      [],
    );
  });

  it("refuses a subcommand's flag without it, and unknown flags", () => {
    expect(checkFlags("dst", spec, ["--once"])).toEqual(["dst has no flag --once"]);
    expect(checkFlags("dst", spec, ["get", "--onse"])).toEqual(["dst get has no flag --onse"]);
  });

  it("stops at --", () => {
    expect(checkFlags("dst", spec, ["get", "--", "--not-a-flag"])).toEqual([]);
  });
});
