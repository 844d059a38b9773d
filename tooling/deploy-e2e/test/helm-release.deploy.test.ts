// The operator's round trip with a real Helm release on a real kube-apiserver (with Linkerd's
// CRDs): install linkerd-control-plane with the post-renderer, upgrade with the operator's image,
// then upgrade without it as deploy/linkerd/README.md says to swap back; after each step the
// stored Deployment runs the image expected in `destination` and upstream's in `sp-validator`.
// With Helm 4 (the plugin) and Helm 3 (the executable), each on an API server of its own: the
// chart's cluster-scoped objects belong to one release.
import { type KubeEnv, startKubeEnv } from "@destination/k8s-env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_LINKERD, UPSTREAM_IMAGE } from "../src/deploy-linkerd.js";
import { controlPlaneValues, type Helm, helmWithPlugin, isolatedHelm } from "../src/helm.js";
import { linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";
import { helm3Binary } from "../src/tools.js";

const release = linkerdRelease();

interface Containers {
  spec: { template: { spec: { containers: { name: string; image: string }[] } } };
}

const flavours = [
  { name: "Helm 4 and the plugin", postRenderer: DEPLOY_LINKERD.pluginName, helm: helmWithPlugin },
  {
    name: "Helm 3 and the executable",
    postRenderer: DEPLOY_LINKERD.postRenderer,
    helm: async () => isolatedHelm(helm3Binary()),
  },
] as const;

for (const flavour of flavours) {
  describe.skipIf(!release)(
    `a Linkerd release with ${flavour.name}${release ? "" : ` (skipped: ${NO_RELEASE})`}`,
    () => {
      let env: KubeEnv | undefined;
      let helm: Helm | undefined;
      beforeAll(async () => {
        if (!release) return;
        env = await startKubeEnv({ installCrds: false, extraCrdFiles: [release.rendered.crds] });
        helm = await flavour.helm();
      });
      afterAll(async () => {
        helm?.dispose();
        await env?.stop();
      });

      async function images(): Promise<Record<string, string>> {
        if (!env) throw new Error("no API server");
        const res = await env.request<Containers>(
          "GET",
          "/apis/apps/v1/namespaces/linkerd/deployments/linkerd-destination",
        );
        expect(res.status, res.text).toBe(200);
        return Object.fromEntries(
          res.body.spec.template.spec.containers.map((c) => [c.name, c.image]),
        );
      }

      function upgrade(args: string[]) {
        if (!env || !helm || !release) throw new Error("not set up");
        return helm.run([
          "upgrade",
          "linkerd-control-plane",
          release.controlPlaneChart,
          "--namespace",
          "linkerd",
          "--kubeconfig",
          env.kubeconfigPath,
          ...args,
        ]);
      }

      it("installs with our image, moves to the operator's, and swaps back to upstream's", async () => {
        if (!release) return;
        await upgrade([
          "--install",
          "--create-namespace",
          ...controlPlaneValues(release),
          "--post-renderer",
          flavour.postRenderer,
        ]);
        expect(await images()).toMatchObject({
          destination: DEPLOY_LINKERD.defaultImage,
          "sp-validator": expect.stringMatching(UPSTREAM_IMAGE),
          policy: expect.stringMatching(UPSTREAM_IMAGE),
        });

        const ref = "registry.example/destination-server:0.2.1";
        await upgrade([
          "--reset-then-reuse-values",
          "--post-renderer",
          flavour.postRenderer,
          "--post-renderer-args",
          ref,
        ]);
        expect((await images()).destination).toBe(ref);

        // deploy/linkerd/README.md, "Swap back": the same upgrade without the post-renderer.
        await upgrade(["--reset-then-reuse-values"]);
        expect(await images()).toMatchObject({
          destination: expect.stringMatching(UPSTREAM_IMAGE),
          "sp-validator": expect.stringMatching(UPSTREAM_IMAGE),
        });
      });
    },
  );
}
