// Fast checks that need no kube-apiserver: manifests, CRD files, go.mod parsing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { etcdVersionOf, stagingModules } from "../lib/provision.js";
import { CRD_DIR, parseManifests, resolveProvisionConfig } from "../src/index.js";
import { objectPath } from "../src/manifests.js";

describe("CRD manifests", () => {
  const crds = readdirSync(CRD_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseManifests(readFileSync(join(CRD_DIR, f), "utf8")));
  const byName = new Map(crds.map((c) => [c.metadata.name, c]));

  it.each([
    ["serviceprofiles.linkerd.io", "ServiceProfile", "v1alpha2", ["v1alpha1", "v1alpha2"]],
    ["servers.policy.linkerd.io", "Server", "v1beta3", ["v1beta1", "v1beta2", "v1beta3"]],
    [
      "externalworkloads.workload.linkerd.io",
      "ExternalWorkload",
      "v1beta1",
      ["v1alpha1", "v1beta1"],
    ],
  ])("%s serves %s with storage %s", (name, kind, storage, served) => {
    const crd = byName.get(name) as unknown as {
      spec: {
        names: { kind: string };
        scope: string;
        versions: { name: string; served: boolean; storage: boolean; schema: unknown }[];
      };
    };
    expect(crd).toBeDefined();
    expect(crd.spec.names.kind).toBe(kind);
    expect(crd.spec.scope).toBe("Namespaced");
    expect(crd.spec.versions.filter((v) => v.storage).map((v) => v.name)).toEqual([storage]);
    expect(crd.spec.versions.filter((v) => v.served).map((v) => v.name)).toEqual(served);
    for (const v of crd.spec.versions) expect(v.schema).toBeTruthy();
  });

  it("resolves YAML anchors and merge keys into plain objects", () => {
    type Schema = { properties: Record<string, Schema> } & Record<string, unknown>;
    const server = byName.get("servers.policy.linkerd.io") as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
    };
    const v1beta3 = server.spec.versions[2]?.schema.openAPIV3Schema.properties.spec;
    expect(v1beta3?.properties.externalWorkloadSelector?.properties.matchLabels).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
    expect(JSON.stringify(server)).not.toContain("<<");
  });
});

describe("manifests", () => {
  it("splits multi-document YAML and Lists", () => {
    const objs = parseManifests(`
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}}
`);
    expect(objs.map((o) => o.kind)).toEqual(["Namespace", "ConfigMap"]);
  });

  it("builds object paths", () => {
    const sp = {
      apiVersion: "linkerd.io/v1alpha2",
      kind: "ServiceProfile",
      metadata: { name: "web.ns.svc.cluster.local", namespace: "ns" },
    };
    expect(
      objectPath(sp, { name: "serviceprofiles", namespaced: true, kind: "ServiceProfile" }),
    ).toBe("/apis/linkerd.io/v1alpha2/namespaces/ns/serviceprofiles/web.ns.svc.cluster.local");
    expect(
      objectPath(
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "x" } },
        { name: "namespaces", namespaced: false, kind: "Namespace" },
      ),
    ).toBe("/api/v1/namespaces/x");
  });

  it("rejects manifests without a name", () => {
    expect(() => parseManifests("apiVersion: v1\nkind: Namespace\nmetadata: {}\n")).toThrow(
      /metadata.name/,
    );
  });
});

describe("provisioning config", () => {
  it("reads staging modules and the etcd version from a k8s.io/kubernetes go.mod", () => {
    const goMod = `module k8s.io/kubernetes
go 1.26.0
require (
	go.etcd.io/etcd/client/v3 v3.7.0
	k8s.io/api v0.0.0
	k8s.io/apiserver v0.0.0
	k8s.io/klog/v2 v2.140.0
)
require (
	go.etcd.io/etcd/server/v3 v3.7.0 // indirect
	k8s.io/kms v0.0.0 // indirect
)
`;
    expect(stagingModules(goMod)).toEqual(["k8s.io/api", "k8s.io/apiserver", "k8s.io/kms"]);
    expect(etcdVersionOf(goMod)).toBe("v3.7.0");
  });

  it("normalises versions and rejects non-releases", () => {
    expect(resolveProvisionConfig({ k8sVersion: "1.36.3", cacheDir: "/c" }).dir).toBe("/c/v1.36.3");
    expect(() => resolveProvisionConfig({ k8sVersion: "latest" })).toThrow(/release version/);
  });
});
