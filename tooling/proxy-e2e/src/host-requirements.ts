// What a suite that makes network namespaces needs of the machine: root, and a few tools. Checked
// once in a vitest global setup, so a run fails at once saying what is missing.
import { execFileSync } from "node:child_process";

export function requireRootAndTools(suite: string, tools: readonly string[]): void {
  if (process.getuid?.() !== 0) {
    throw new Error(`${suite} makes network namespaces and iptables rules: run it as root`);
  }
  for (const tool of tools) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    } catch {
      throw new Error(`${suite} needs \`${tool}\` (apt-get install iptables iproute2 util-linux)`);
    }
  }
}
