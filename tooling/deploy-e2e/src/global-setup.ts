// Vitest global setup: the pinned Helm 4, Helm 3 and kustomize (built with go on the first run, a few
// minutes; later runs find them in ~/.cache) and kube-apiserver with etcd (tooling/k8s-env),
// before any test file starts; then one line saying what runs, and why the chart tests are
// skipped when LINKERD_RELEASE_DIR names no release. Without Go and without cached binaries it
// fails with what to install; it never skips the tools.
import { ensureBinaries } from "@destination/k8s-env";
import { ensureGoTool, HELM, HELM3, KUSTOMIZE } from "../lib/go-tools.mjs";
import { linkerdRelease, NO_RELEASE } from "./linkerd-release.js";

export default async function setup(): Promise<void> {
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`[deploy-e2e] ${line}\n`);
  const helm = await ensureGoTool(HELM, { log });
  const helm3 = await ensureGoTool(HELM3, { log });
  const kustomize = await ensureGoTool(KUSTOMIZE, { log });
  const k8s = await ensureBinaries();
  const release = linkerdRelease();
  log(
    `helm ${HELM.version} (${helm}), helm ${HELM3.version} (${helm3}), kustomize ${KUSTOMIZE.version} (${kustomize}), ` +
      `kube-apiserver ${k8s.k8sVersion}; ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  log(release ? `Linkerd's charts and renders: ${release.dir}` : NO_RELEASE);
}
