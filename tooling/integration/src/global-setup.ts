// Vitest global setup: provisions kube-apiserver and etcd before any test file starts (on a
// fresh machine that is a build of 8 to 18 minutes, with a progress line every 30 s; later runs
// find the cache) and prints the API server's version first. Without Go and without cached
// binaries, it fails with what to install; it never skips.
import { spawnSync } from "node:child_process";
import { ensureBinaries } from "@destination/k8s-env";

export default async function setup(): Promise<void> {
  const started = Date.now();
  const binaries = await ensureBinaries();
  const version = (bin: string) =>
    spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.trim().split("\n")[0] ?? "";
  const api = version(binaries.kubeApiServer);
  if (!api.includes(binaries.k8sVersion)) {
    throw new Error(`integration: ${binaries.kubeApiServer} --version printed "${api}"`);
  }
  process.stdout.write(
    `[integration] kube-apiserver ${api.replace(/^Kubernetes /, "")}, etcd ${binaries.etcdVersion} ` +
      `(${binaries.dir}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
}
