// Vitest global setup: fails the run at once, saying what is missing, when the suite cannot
// work here (a variable unset, not root, a tool missing), instead of failing each test.
import { execFileSync } from "node:child_process";
import { linkerdRelease } from "./release.js";

export default function setup(): void {
  const release = linkerdRelease();
  if (process.getuid?.() !== 0) {
    throw new Error("mesh-e2e makes network and mount namespaces and iptables rules: run as root");
  }
  for (const tool of ["ip", "iptables", "setpriv", "unshare", "mount"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    } catch {
      throw new Error(`mesh-e2e needs \`${tool}\` (apt-get install iptables iproute2 util-linux)`);
    }
  }
  process.stdout.write(
    `[mesh-e2e] linkerd2-proxy: ${release.proxyBin}\n[mesh-e2e] linkerd-controller: ${release.controllerBin}\n[mesh-e2e] linkerd-policy-controller: ${release.policyControllerBin}\n`,
  );
}
