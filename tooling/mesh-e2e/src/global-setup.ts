// Vitest global setup: fails the run at once, saying what is missing, when the suite cannot
// work here (a variable unset, not root, a tool missing), instead of failing each test.
import { requireRootAndTools } from "@destination/proxy-e2e/host-requirements";
import { linkerdRelease } from "./release.js";

export default function setup(): void {
  const release = linkerdRelease();
  // unshare and mount: the controllers' /var/run/linkerd in mount namespaces of their own.
  requireRootAndTools("mesh-e2e", ["ip", "iptables", "setpriv", "unshare", "mount"]);
  for (const [what, path] of [
    ["linkerd2-proxy", release.proxyBin],
    ["linkerd-controller", release.controllerBin],
    ["linkerd-policy-controller", release.policyControllerBin],
  ]) {
    process.stdout.write(`[mesh-e2e] ${what}: ${path}\n`);
  }
}
