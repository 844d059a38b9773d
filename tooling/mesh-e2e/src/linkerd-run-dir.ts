// The chart mounts Secrets and ConfigMaps under /var/run/linkerd (the identity issuer and trust
// roots, the policy webhook's TLS pair), and some binaries read fixed paths there. Each such
// process gets a mount namespace of its own in which a temp folder is bind-mounted over
// /var/run/linkerd: the machine's /var/run is never written to.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes `files` (paths relative to /var/run/linkerd) into `dir`. */
export function writeRunDir(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content, { mode: 0o600 });
  }
}

/**
 * `cmd args` run with `dir` over /var/run/linkerd, as a command for `ip netns exec`. There is no
 * /var/run/linkerd on the machine to mount over, so a private tmpfs first covers /run (only in
 * the new mount namespace) and /run/linkerd is made in it.
 */
export function withRunDir(dir: string, cmd: string, args: string[]): [string, string[]] {
  const script =
    'mount -t tmpfs mesh-e2e /run && mkdir /run/linkerd && mount --bind "$0" /run/linkerd && exec "$@"';
  return [
    "unshare",
    ["--mount", "--propagation", "private", "sh", "-c", script, dir, cmd, ...args],
  ];
}
