// What the post-renderer and the overlay produce, sent object by object to a real
// kube-apiserver (tooling/k8s-env) that has Linkerd's own CRDs (rendered/linkerd-crds.yaml) and
// the `linkerd` namespace: every object passes a strict server-side dry run, and the Deployment
// the API server would store runs our image in the `destination` container with the chart's
// command line and security context.
import { readFileSync } from "node:fs";
import { type KubeEnv, type KubeObject, parseManifests, startKubeEnv } from "@destination/k8s-env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dryRunCreateAll } from "../src/api-dry-run.js";
import { DEPLOY_LINKERD } from "../src/deploy-linkerd.js";
import { destinationContainer } from "../src/destination-container.js";
import { type Helm, helmWithPlugin, renderControlPlane } from "../src/helm.js";
import { linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";
import { overlayWith } from "../src/overlay.js";

const release = linkerdRelease();

describe.skipIf(!release)(`the API server${release ? "" : ` (skipped: ${NO_RELEASE})`}`, () => {
  let env: KubeEnv | undefined;
  let helm: Helm | undefined;
  beforeAll(async () => {
    if (!release) return;
    // Linkerd's CRDs rather than k8s-env's copies: the cluster as `linkerd install --crds` leaves it.
    env = await startKubeEnv({ installCrds: false, extraCrdFiles: [release.rendered.crds] });
    await env.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "linkerd" } });
    helm = await helmWithPlugin();
  });
  afterAll(async () => {
    helm?.dispose();
    await env?.stop();
  });

  async function expectAccepted(manifests: string): Promise<KubeObject[]> {
    if (!env) throw new Error("no API server");
    const objects = parseManifests(manifests);
    const results = await dryRunCreateAll(env, objects);
    // One line per object, so that a refusal names the object and the API server's reason.
    expect(results.filter((r) => r.status !== 201).map((r) => `${r.object}: ${r.text}`)).toEqual(
      [],
    );
    expect(results.length).toBeGreaterThan(30);
    // A dry run stores nothing: the Deployment is still not there.
    const stored = await env.request("GET", "/apis/apps/v1/namespaces/linkerd/deployments");
    expect((stored.body as { items: unknown[] }).items).toEqual([]);
    return results.map((r) => r.body);
  }

  function expectOurDestination(accepted: KubeObject[], chart: string) {
    const ours = destinationContainer(accepted);
    const theirs = destinationContainer(parseManifests(chart));
    expect(ours.image).toBe(DEPLOY_LINKERD.defaultImage);
    // The chart's command line, untouched: the server takes `destination -addr=:8086 ...`.
    expect(ours.command).toBeUndefined();
    expect(ours.args).toEqual(theirs.args);
    expect(ours.args?.[0]).toBe("destination");
    expect(ours.securityContext).toMatchObject({ runAsUser: 2103, runAsNonRoot: true });
  }

  for (const ha of [false, true]) {
    const values = ha ? "high-availability" : "default";

    it(`accepts every object Helm 4 renders with the plugin, ${values} values`, async () => {
      if (!release || !helm) return;
      const plain = await renderControlPlane(helm, release, { ha });
      const post = await renderControlPlane(helm, release, {
        ha,
        args: ["--post-renderer", DEPLOY_LINKERD.pluginName],
      });
      expectOurDestination(await expectAccepted(post), plain);
    });

    it(`accepts every object of the overlay over rendered/, ${values} values`, async () => {
      if (!release) return;
      const file = ha ? release.rendered.controlPlaneHa : release.rendered.controlPlane;
      const rendered = readFileSync(file, "utf8");
      const overlay = overlayWith(rendered);
      try {
        expectOurDestination(await expectAccepted(await overlay.build()), rendered);
      } finally {
        overlay.dispose();
      }
    });
  }

  it("refuses a field the API does not know (the dry run above would catch one)", async () => {
    if (!env || !release) return;
    const rendered = readFileSync(release.rendered.controlPlane, "utf8").replace(
      "image: cr.l5d.io/linkerd/controller:",
      "imag: cr.l5d.io/linkerd/controller:",
    );
    const deployment = parseManifests(rendered).filter(
      (o) => o.kind === "Deployment" && o.metadata.name === "linkerd-destination",
    );
    const [result] = await dryRunCreateAll(env, deployment);
    expect(result?.status).toBe(400);
    expect(result?.text).toContain('unknown field \\"spec.template.spec.containers[0].imag\\"');
  });
});
