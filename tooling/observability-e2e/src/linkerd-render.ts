// Linkerd's rendered control plane (LINKERD_RELEASE_DIR/rendered), before and after our drop-in.
// The drop-in is applied by running its real Helm post-renderer (deploy/linkerd/helm-plugin)
// with the pinned kustomize that tooling/deploy-e2e provisions.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { goToolPath, KUSTOMIZE } from "@destination/deploy-e2e/lib/go-tools.mjs";
import { parseAllDocuments } from "yaml";
import type { PodTemplate } from "./pod-targets.js";

export const NO_RELEASE =
  "LINKERD_RELEASE_DIR is not set: the checks against Linkerd's rendered chart are skipped " +
  "(CI uses the release beside the clone).";

const POST_RENDERER = fileURLToPath(
  new URL("../../../deploy/linkerd/helm-plugin/destination-post-renderer", import.meta.url),
);

/** rendered/linkerd-control-plane.yaml of the release LINKERD_RELEASE_DIR names, if it does. */
export function renderedControlPlane(): string | undefined {
  const dir = process.env.LINKERD_RELEASE_DIR?.trim();
  if (!dir) return undefined;
  const file = join(resolve(dir), "rendered/linkerd-control-plane.yaml");
  if (!existsSync(file)) throw new Error(`LINKERD_RELEASE_DIR=${dir} lacks ${file}`);
  return readFileSync(file, "utf8");
}

/** The manifests with the drop-in applied, as `helm --post-renderer` would hand them on. */
export function withDropIn(manifests: string): string {
  const kustomize = goToolPath(KUSTOMIZE);
  if (!existsSync(kustomize)) {
    throw new Error(`no kustomize at ${kustomize}: run node tooling/deploy-e2e/bin/provision.mjs`);
  }
  const run = spawnSync("sh", [POST_RENDERER, "destination-server:observability-e2e"], {
    input: manifests,
    encoding: "utf8",
    env: { ...process.env, KUSTOMIZE: kustomize },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`post-renderer failed: ${run.stderr}`);
  return run.stdout;
}

interface Deployment {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: { template: PodTemplate };
}

/** The pod template of the linkerd-destination Deployment. */
export function destinationPodTemplate(manifests: string): PodTemplate {
  const deployment = parseAllDocuments(manifests)
    .map((d) => d.toJS() as Deployment | null)
    .find((o) => o?.kind === "Deployment" && o.metadata.name === "linkerd-destination");
  if (!deployment) throw new Error("no Deployment linkerd-destination");
  return deployment.spec.template;
}
