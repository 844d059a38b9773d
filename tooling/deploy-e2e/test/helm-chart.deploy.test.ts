// Linkerd's real linkerd-control-plane chart, rendered by the pinned Helm 4 without and with
// `--post-renderer destination-server` (deploy/linkerd/helm-plugin installed as a plugin), with
// the default and the high-availability values: the two renders differ in exactly one field,
// the destination container's image. The same with Helm 3.22 and the executable as
// --post-renderer, and with the executable alone over the manifests in rendered/ (the pipe of
// `linkerd install | ... | kubectl apply -f -`).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_LINKERD, UPSTREAM_IMAGE } from "../src/deploy-linkerd.js";
import { type Helm, helmWithPlugin, isolatedHelm, renderControlPlane } from "../src/helm.js";
import { KUBE_VERSION, linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";
import { manifestChanges } from "../src/manifest-changes.js";
import { postRender } from "../src/post-renderer.js";
import { helm3Binary } from "../src/tools.js";

const release = linkerdRelease();

/** The one change we allow: the destination container's image, from upstream's to `image`. */
const onlyTheImage = (image: string) => [
  {
    object: "Deployment linkerd/linkerd-destination",
    path: "spec.template.spec.containers[destination].image",
    before: expect.stringMatching(UPSTREAM_IMAGE),
    after: image,
  },
];

describe.skipIf(!release)(
  `Linkerd's chart with the post-renderer${release ? "" : ` (skipped: ${NO_RELEASE})`}`,
  () => {
    let helm: Helm;
    let helm3: Helm;
    beforeAll(async () => {
      helm = await helmWithPlugin();
      helm3 = isolatedHelm(helm3Binary());
    });
    afterAll(() => {
      helm?.dispose();
      helm3?.dispose();
    });

    for (const values of ["default", "high-availability"] as const) {
      const ha = values === "high-availability";

      it(`Helm 4 plugin, ${values} values: only the destination container's image changes`, async () => {
        if (!release) return;
        const plain = await renderControlPlane(helm, release, { ha });
        const post = await renderControlPlane(helm, release, {
          ha,
          args: ["--post-renderer", DEPLOY_LINKERD.pluginName],
        });
        expect(manifestChanges(plain, post)).toEqual(onlyTheImage(DEPLOY_LINKERD.defaultImage));
      });

      it(`Helm 3 with the executable, ${values} values: only that image changes`, async () => {
        if (!release) return;
        const plain = await renderControlPlane(helm3, release, { ha });
        const post = await renderControlPlane(helm3, release, {
          ha,
          args: ["--post-renderer", DEPLOY_LINKERD.postRenderer],
        });
        expect(manifestChanges(plain, post)).toEqual(onlyTheImage(DEPLOY_LINKERD.defaultImage));
      });

      it(`the executable over rendered/, ${values} values: only that image changes`, async () => {
        if (!release) return;
        const file = ha ? release.rendered.controlPlaneHa : release.rendered.controlPlane;
        const rendered = readFileSync(file, "utf8");
        const result = await postRender(rendered);
        expect(result.code, result.stderr).toBe(0);
        expect(manifestChanges(rendered, result.stdout)).toEqual(
          onlyTheImage(DEPLOY_LINKERD.defaultImage),
        );
      });
    }

    it("takes the operator's image from --post-renderer-args, or from DESTINATION_IMAGE", async () => {
      if (!release) return;
      const ref = "registry.example:5000/mesh/destination-server:0.2.1";
      for (const [h, postRenderer] of [
        [helm, DEPLOY_LINKERD.pluginName],
        [helm3, DEPLOY_LINKERD.postRenderer],
      ] as const) {
        const plain = await renderControlPlane(h, release);
        const byArg = await renderControlPlane(h, release, {
          args: ["--post-renderer", postRenderer, "--post-renderer-args", ref],
        });
        expect(manifestChanges(plain, byArg)).toEqual(onlyTheImage(ref));
        const byEnv = await renderControlPlane(h, release, {
          args: ["--post-renderer", postRenderer],
          env: { DESTINATION_IMAGE: ref },
        });
        expect(manifestChanges(plain, byEnv)).toEqual(onlyTheImage(ref));
      }
    });

    it("fails the helm command when given to another chart (linkerd-crds), Helm 4 and 3", async () => {
      if (!release) return;
      const args = [
        "template",
        "linkerd-crds",
        release.crdsChart,
        "--namespace",
        "linkerd",
        "--kube-version",
        KUBE_VERSION,
        "--post-renderer",
        DEPLOY_LINKERD.pluginName,
      ];
      // Helm 4.3.2 keeps a post-renderer plugin's stderr to itself (even with --debug): it says
      // only that the plugin failed. The README tells operators to pipe the render through the
      // executable to read why, which is this:
      await expect(helm.run(args)).rejects.toThrow(/plugin "destination-server" exited with error/);
      const render = await helm.run(args.slice(0, -2));
      const why = await postRender(render);
      expect(why.code).not.toBe(0);
      expect(why.stderr).toContain("no Deployment linkerd-destination");
      // Helm 3 passes the executable's message on.
      const helm3Args = [...args.slice(0, -1), DEPLOY_LINKERD.postRenderer];
      await expect(helm3.run(helm3Args)).rejects.toThrow(/no Deployment linkerd-destination/);
    });
  },
);
