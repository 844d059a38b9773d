// deploy/linkerd/overlay over the manifests of rendered/ (what `linkerd install` or `helm
// template` print), default and high-availability: `kustomize build` of the overlay differs from
// the render in exactly the destination container's image, and `kustomize edit set image` moves
// that image to the operator's registry.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEPLOY_LINKERD, UPSTREAM_IMAGE } from "../src/deploy-linkerd.js";
import { linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";
import { manifestChanges } from "../src/manifest-changes.js";
import { overlayWith } from "../src/overlay.js";

const release = linkerdRelease();

const onlyTheImage = (image: string) => [
  {
    object: "Deployment linkerd/linkerd-destination",
    path: "spec.template.spec.containers[destination].image",
    before: expect.stringMatching(UPSTREAM_IMAGE),
    after: image,
  },
];

describe.skipIf(!release)(
  `the kustomize overlay${release ? "" : ` (skipped: ${NO_RELEASE})`}`,
  () => {
    for (const values of ["default", "high-availability"] as const) {
      it(`over rendered/ with ${values} values: only the destination container's image changes`, async () => {
        if (!release) return;
        const file =
          values === "default" ? release.rendered.controlPlane : release.rendered.controlPlaneHa;
        const rendered = readFileSync(file, "utf8");
        const overlay = overlayWith(rendered);
        try {
          expect(manifestChanges(rendered, await overlay.build())).toEqual(
            onlyTheImage(DEPLOY_LINKERD.defaultImage),
          );
        } finally {
          overlay.dispose();
        }
      });
    }

    it("uses the image `kustomize edit set image destination-server=...` names", async () => {
      if (!release) return;
      const rendered = readFileSync(release.rendered.controlPlane, "utf8");
      const overlay = overlayWith(rendered);
      try {
        const ref = "registry.example/mesh/destination-server:0.2.1";
        await overlay.setImage(ref);
        expect(manifestChanges(rendered, await overlay.build())).toEqual(onlyTheImage(ref));
      } finally {
        overlay.dispose();
      }
    });
  },
);
