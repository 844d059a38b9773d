// The post-renderer executable as Helm 3 runs it (manifests on stdin, --post-renderer-args as
// arguments), on a small stand-in for Linkerd's Deployment: needs no chart, so it runs in any
// clone. The real chart is helm-chart.deploy.test.ts.
import { describe, expect, it } from "vitest";
import { DEPLOY_LINKERD } from "../src/deploy-linkerd.js";
import { manifestChanges } from "../src/manifest-changes.js";
import { postRender } from "../src/post-renderer.js";

// Another namespace than `linkerd` on purpose: `helm install -n NS` puts the chart there.
const LINKERD = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: linkerd-destination, namespace: mesh}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
        - name: destination
          image: cr.l5d.io/linkerd/controller:edge-1
          args: [destination, -addr=:8086]
        - name: sp-validator
          image: cr.l5d.io/linkerd/controller:edge-1
          args: [sp-validator]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: linkerd-identity, namespace: mesh}
spec:
  selector: {matchLabels: {app: i}}
  template:
    metadata: {labels: {app: i}}
    spec:
      containers:
        - name: destination
          image: cr.l5d.io/linkerd/controller:edge-1
`;

/** The one change the post-renderer may make: the destination container's image. */
const imageChange = (after: string) => [
  {
    object: "Deployment mesh/linkerd-destination",
    path: "spec.template.spec.containers[destination].image",
    before: "cr.l5d.io/linkerd/controller:edge-1",
    after,
  },
];

async function imageAfter(args: string[], env: Record<string, string> = {}) {
  const result = await postRender(LINKERD, args, env);
  expect(result.code, result.stderr).toBe(0);
  return manifestChanges(LINKERD, result.stdout);
}

describe("destination-post-renderer (Helm 3's contract)", () => {
  it("gives the destination container of linkerd-destination our image and changes nothing else", async () => {
    // Not sp-validator (same image), not the `destination` container of another Deployment.
    expect(await imageAfter([])).toEqual(imageChange(DEPLOY_LINKERD.defaultImage));
  });

  it("takes the image from its first argument (--post-renderer-args), registry port and all", async () => {
    const ref = "registry.example:5000/mesh/destination-server:0.2.1";
    expect(await imageAfter([ref])).toEqual(imageChange(ref));
  });

  it("takes the image from DESTINATION_IMAGE, and the argument over it", async () => {
    const env = { DESTINATION_IMAGE: "registry.example/destination-server:0.2.2" };
    expect(await imageAfter([], env)).toEqual(imageChange(env.DESTINATION_IMAGE));
    expect(await imageAfter(["other.example/d:1"], env)).toEqual(imageChange("other.example/d:1"));
  });

  it("pins by digest, and reads a name without a tag as :latest, as docker does", async () => {
    const digest = `registry.example/destination-server@sha256:${"ab".repeat(32)}`;
    expect(await imageAfter([digest])).toEqual(imageChange(digest));
    expect(await imageAfter(["registry.example:5000/destination-server"])).toEqual(
      imageChange("registry.example:5000/destination-server:latest"),
    );
  });

  it("fails, saying why, on manifests without Linkerd's destination Deployment", async () => {
    const other = LINKERD.replace("name: linkerd-destination", "name: something-else");
    const result = await postRender(other);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "no Deployment linkerd-destination with a container named destination",
    );
  });

  it("fails rather than add a container when linkerd-destination has none named destination", async () => {
    // The first `destination` container is linkerd-destination's (linkerd-identity's comes after).
    const renamed = LINKERD.replace("- name: destination", "- name: dst");
    expect(renamed).not.toBe(LINKERD);
    const result = await postRender(renamed);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("with a container named destination");
  });

  it("refuses what is not an image reference", async () => {
    const result = await postRender(LINKERD, ["destination-server:0.2.0; rm -rf /"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("not an image reference");
  });

  it("fails, saying what to install, without kustomize", async () => {
    const result = await postRender(LINKERD, [], { KUSTOMIZE: "/nonexistent/kustomize" });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
  });
});
