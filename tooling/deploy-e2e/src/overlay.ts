// deploy/linkerd/overlay as an operator uses it: a copy of deploy/linkerd's overlay and
// component (kustomize reads only inside the folders it builds), the operator's render placed
// beside the overlay's kustomization.yaml, then `kustomize build`.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEPLOY_LINKERD } from "./deploy-linkerd.js";
import { output } from "./run.js";
import { kustomizeBinary } from "./tools.js";

export interface Overlay {
  /** The copy's overlay folder. */
  readonly dir: string;
  /** `kustomize edit set image destination-server=REF`, as the overlay's comment suggests. */
  setImage(ref: string): Promise<void>;
  /** `kustomize build` of the overlay: the manifests to apply. */
  build(): Promise<string>;
  dispose(): void;
}

/** A copy of the overlay with `render` as its linkerd-control-plane.yaml. */
export function overlayWith(render: string): Overlay {
  const root = mkdtempSync(join(tmpdir(), "deploy-e2e-overlay-"));
  const dir = join(root, "overlay");
  cpSync(DEPLOY_LINKERD.overlay, dir, { recursive: true });
  cpSync(DEPLOY_LINKERD.component, join(root, "destination-image"), { recursive: true });
  writeFileSync(join(dir, "linkerd-control-plane.yaml"), render);
  return {
    dir,
    setImage: async (ref) => {
      await output(kustomizeBinary(), ["edit", "set", "image", `destination-server=${ref}`], {
        cwd: dir,
      });
    },
    build: () => output(kustomizeBinary(), ["build", dir]),
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}
