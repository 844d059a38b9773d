// Our destination-server, started from its built binary inside the test's namespace, on fixed
// ports there (the namespace is the test's own, so nothing else can hold them).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { NetworkNamespace, StartedProcess } from "./network-namespace.js";

const APP = fileURLToPath(new URL("../../../apps/destination-server", import.meta.url));
const BIN = `${APP}/bin/destination-server.js`;

export const DESTINATION_PORT = 8086;
export const DESTINATION_ADMIN_PORT = 9996;

export type Backend = { manifests: string } | { kubeconfig: string };

export interface DestinationServerInNamespace {
  readonly process: StartedProcess;
  stop(): Promise<void>;
}

/** Starts the binary and resolves on its "ready" log line; rejects with its output if it exits. */
export async function startDestinationServer(
  ns: NetworkNamespace,
  backend: Backend,
  name = "destination-server",
): Promise<DestinationServerInNamespace> {
  if (!existsSync(`${APP}/dist/main.js`)) {
    throw new Error(
      "apps/destination-server/dist is missing: run `pnpm turbo run build --filter=@destination/proxy-e2e...` (pnpm test:proxy does)",
    );
  }
  const source =
    "manifests" in backend
      ? ["--manifests", backend.manifests]
      : ["--kubeconfig", backend.kubeconfig];
  const proc = ns.start(
    name,
    process.execPath,
    [
      BIN,
      ...source,
      "--addr",
      `127.0.0.1:${DESTINATION_PORT}`,
      "--metrics-addr",
      `127.0.0.1:${DESTINATION_ADMIN_PORT}`,
      "--log-format",
      "json",
      "--shutdown-timeout",
      "1s",
    ],
    {
      // As in a pod: the ExternalWorkload controller's Lease identity (the binary requires it on
      // a cluster backend, as upstream's does).
      env: { ...process.env, HOSTNAME: process.env.HOSTNAME || `${name}-destination` },
    },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const onData = (d: Buffer) => {
      seen += d;
      if (/"msg":"ready"/.test(seen)) {
        proc.child.stderr?.off("data", onData);
        resolve();
      }
    };
    proc.child.stderr?.on("data", onData);
    void proc.exited.then(() =>
      reject(new Error(`destination-server exited before ready:\n${proc.output()}`)),
    );
  });
  return { process: proc, stop: () => proc.stop(3000) };
}
