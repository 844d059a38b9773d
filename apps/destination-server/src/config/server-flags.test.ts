import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SERVER_FLAGS } from "./server-flags.js";

// Upstream's controller binary, named by LINKERD_CONTROLLER_BIN (README, "Linkerd's own binaries
// and charts"); not in the repository.
const UPSTREAM = process.env.LINKERD_CONTROLLER_BIN ?? "";

/** Flag name → default as Go's flag package prints it in `-h` (no default: the zero value). */
function upstreamDefaults(help: string): Map<string, string> {
  const defaults = new Map<string, string>();
  let current: { name: string; kind: string } | undefined;
  for (const line of help.split("\n")) {
    const flag = /^ {2}-(\S+)(?: (\S+))?$/.exec(line);
    if (flag?.[1] !== undefined) {
      current = { name: flag[1], kind: flag[2] ?? "bool" };
      defaults.set(current.name, current.kind === "bool" ? "false" : "");
      continue;
    }
    const shown = /\(default (.*)\)$/.exec(line);
    if (current !== undefined && shown?.[1] !== undefined) {
      defaults.set(current.name, shown[1].replace(/^"(.*)"$/, "$1"));
    }
  }
  return defaults;
}

describe("upstreamDefaults", () => {
  it("reads Go's usage lines", () => {
    const help = [
      "Usage of destination:",
      "  -addr string",
      '    \taddress to serve on (default ":8086")',
      "  -enable-ipv6",
      "    \tallow IPv6 (default true)",
      "  -enable-pprof",
      "    \tEnable pprof",
      "  -stream-queue-capacity int",
      "    \tMaximum updates (default 100)",
      "  -kubeconfig string",
      "    \tpath to kube config",
    ].join("\n");
    expect([...upstreamDefaults(help)]).toEqual([
      ["addr", ":8086"],
      ["enable-ipv6", "true"],
      ["enable-pprof", "false"],
      ["stream-queue-capacity", "100"],
      ["kubeconfig", ""],
    ]);
  });
});

describe.skipIf(UPSTREAM === "")("upstream's flags (LINKERD_CONTROLLER_BIN)", () => {
  it("are all ours, with upstream's defaults", () => {
    // Go's flag package prints the usage on stderr.
    const run = spawnSync(UPSTREAM, ["destination", "-h"], { encoding: "utf8", timeout: 10_000 });
    const upstream = upstreamDefaults(`${run.stdout}${run.stderr}`);
    expect(upstream.size).toBeGreaterThan(15);
    const ours = new Map(SERVER_FLAGS.map((f) => [f.name, f.default]));
    for (const [name, value] of upstream) {
      expect([name, ours.get(name)]).toEqual([name, value]);
    }
  });
});
