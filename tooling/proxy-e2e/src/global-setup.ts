// Vitest global setup: fails the run at once, saying what is missing, when the suite cannot
// work here (no proxy binary, not root, no ip/iptables/setpriv), instead of failing each test.
import { execFileSync } from "node:child_process";
import { proxyBinary } from "./proxy-binary.js";

export default function setup(): void {
  const bin = proxyBinary();
  if (process.getuid?.() !== 0) {
    throw new Error("proxy-e2e makes network namespaces and iptables rules: run it as root");
  }
  for (const tool of ["ip", "iptables", "setpriv"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    } catch {
      throw new Error(`proxy-e2e needs \`${tool}\` (apt-get install iptables iproute2 util-linux)`);
    }
  }
  // The proxy has no --version flag; it logs its version when it starts (see each test's output).
  process.stdout.write(`[proxy-e2e] linkerd2-proxy: ${bin}\n`);
}
