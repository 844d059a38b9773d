// destination-server on loopback with free ports, serving a temp copy of the repository's example
// manifests: the binary the workspace built (apps/destination-server/bin), which the proto example
// talks to, or the published one through npx, which `npx @destination/cli` talks to.
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type GroupProcess, spawnInGroup } from "@destination/doc-commands/process-group";
import { ROOT } from "./workspace.js";

export interface RunningServer {
  /** `127.0.0.1:<port>` of the gRPC server. */
  readonly addr: string;
  /** The folder it serves: write a manifest here to change what it answers. */
  readonly manifests: string;
  readonly process: GroupProcess;
  stop(): Promise<void>;
}

/**
 * `how` is `workspace` (the binary built here: `node apps/destination-server/bin/…`) or the argv
 * prefix that runs a published one (`["npx", "@destination/server"]`, with `env` pointing npx at
 * the local registry).
 */
export async function startServer(
  dir: string,
  how: "workspace" | { argv: readonly string[]; env: NodeJS.ProcessEnv } = "workspace",
): Promise<RunningServer> {
  const manifests = join(dir, "manifests");
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, "examples"), manifests, {
    recursive: true,
    filter: (src) => !src.endsWith(".md"),
  });
  const program =
    how === "workspace"
      ? [process.execPath, join(ROOT, "apps", "destination-server", "bin", "destination-server.js")]
      : how.argv;
  const flags = [
    "--manifests",
    manifests,
    "--addr",
    "127.0.0.1:0",
    "--metrics-addr",
    "127.0.0.1:0",
  ];
  const proc = spawnInGroup([...program, ...flags], {
    cwd: dir,
    ...(how === "workspace" ? {} : { env: how.env }),
  });
  try {
    // npx installs the package first: through the registry, its dependencies from the uplink.
    const ready = await proc.waitFor(/msg="ready" grpcPort=(\d+) adminPort=(\d+)/, 180_000, {
      in: "output",
    });
    return {
      addr: `127.0.0.1:${ready[1]}`,
      manifests,
      process: proc,
      stop: () => proc.stop(),
    };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}
