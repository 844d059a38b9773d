#!/usr/bin/env node
// Builds (first run) or finds (later runs) the cached kube-apiserver and etcd binaries, then
// prints their paths and versions.
//   node tooling/k8s-env/bin/provision.js [--json]
// Env: K8S_VERSION, K8S_ENV_ETCD_VERSION, K8S_ENV_CACHE_DIR.
import { spawnSync } from "node:child_process";
import { ensureBinaries, formatDuration } from "../lib/provision.js";

const json = process.argv.includes("--json");
const t0 = Date.now();
try {
  const b = await ensureBinaries();
  const version = (bin) =>
    spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
  const out = {
    k8sVersion: b.k8sVersion,
    etcdVersion: b.etcdVersion,
    kubeApiServer: b.kubeApiServer,
    etcd: b.etcd,
    apiServerVersion: version(b.kubeApiServer),
    etcdServerVersion: version(b.etcd),
    seconds: Math.round((Date.now() - t0) / 100) / 10,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(
      [
        `kube-apiserver: ${out.kubeApiServer}`,
        `  version:      ${out.apiServerVersion}`,
        `etcd:           ${out.etcd}`,
        `  version:      ${out.etcdServerVersion}`,
        `ready in ${formatDuration(Date.now() - t0)}`,
        "",
      ].join("\n"),
    );
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
