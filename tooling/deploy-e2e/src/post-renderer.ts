// deploy/linkerd/helm-plugin/destination-post-renderer called the way Helm 3 calls a
// --post-renderer executable: the manifests on stdin, --post-renderer-args as arguments, the
// result on stdout.
import { DEPLOY_LINKERD } from "./deploy-linkerd.js";
import { type RunResult, run } from "./run.js";
import { kustomizeBinary } from "./tools.js";

export function postRender(
  manifests: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunResult> {
  return run(DEPLOY_LINKERD.postRenderer, args, {
    input: manifests,
    // DESTINATION_IMAGE empty: the default, unless a test sets it (not the caller's shell).
    env: { KUSTOMIZE: kustomizeBinary(), DESTINATION_IMAGE: "", ...env },
  });
}
