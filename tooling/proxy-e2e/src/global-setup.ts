// Vitest global setup: fails the run at once, saying what is missing, when the suite cannot
// work here (no proxy binary, not root, no ip/iptables/setpriv), instead of failing each test.
import { requireRootAndTools } from "./host-requirements.js";
import { proxyBinary } from "./proxy-binary.js";

export default function setup(): void {
  const bin = proxyBinary();
  requireRootAndTools("proxy-e2e", ["ip", "iptables", "setpriv"]);
  // The proxy has no --version flag; it logs its version when it starts (see each test's output).
  process.stdout.write(`[proxy-e2e] linkerd2-proxy: ${bin}\n`);
}
