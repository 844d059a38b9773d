import { describe, expect, it } from "vitest";
import * as yaml from "yaml";
import { describeLocation, parseManifest } from "./manifest-documents.js";

const names = (text: string, format: "yaml" | "json" = "yaml") =>
  parseManifest(text, format, yaml).objects.map(
    (o) => `${o.kind} ${o.object.metadata.namespace ?? ""}/${o.object.metadata.name}`,
  );

describe("parseManifest", () => {
  it("reads every document of a multi-document file, in order", () => {
    const text = [
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}",
      "# a comment-only document",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop}",
    ].join("\n---\n");
    expect(names(text)).toEqual(["Service shop/web", "Pod shop/web-1"]);
  });

  it("unpacks List and typed lists, typing items of a typed list from the list", () => {
    const list = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: shop}}
- {apiVersion: v1, kind: Service, metadata: {name: b, namespace: shop}}
`;
    const podList = `{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"c","namespace":"shop"}}]}`;
    expect(names(list)).toEqual(["Pod shop/a", "Service shop/b"]);
    expect(names(podList, "json")).toEqual(["Pod shop/c"]);
    expect(parseManifest(podList, "json", yaml).objects[0]?.object).toMatchObject({
      apiVersion: "v1",
      kind: "Pod",
    });
  });

  it("marks a file with a syntax error unreadable, naming the document and the line", () => {
    const parsed = parseManifest(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [Pod\n",
      "yaml",
      yaml,
    );
    expect(parsed.status).toBe("unreadable");
    expect(parsed.objects).toEqual([]);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.location).toEqual({ document: 2 });
    expect(parsed.problems[0]?.reason).toMatch(/line \d+/);
  });

  it("marks invalid JSON unreadable", () => {
    const parsed = parseManifest('{"kind": "Pod",', "json", yaml);
    expect(parsed.status).toBe("unreadable");
    expect(parsed.problems[0]?.location).toEqual({ document: 1 });
  });

  it("skips objects without apiVersion, kind or name and says which and where", () => {
    const parsed = parseManifest(
      [
        "kind: Pod\nmetadata: {name: a}",
        "apiVersion: v1\nkind: Pod\nmetadata: {namespace: shop}",
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, metadata: {name: b}}\n- 42",
        "- just\n- a list",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}",
      ].join("\n---\n"),
      "yaml",
      yaml,
    );
    expect(parsed.status).toBe("ok");
    expect(parsed.problems.map((p) => `${describeLocation(p.location)}: ${p.reason}`)).toEqual([
      "document 1: missing apiVersion",
      "document 2: missing metadata.name",
      "document 3, item 1: missing kind",
      "document 3, item 2: not an object",
      "document 4: not an object",
    ]);
    expect(parsed.objects.map((o) => o.object.metadata.name)).toEqual(["ok"]);
  });

  it("ignores kinds the destination service does not cache, and same-named kinds of other groups", () => {
    const parsed = parseManifest(
      [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}",
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: fn}",
        "apiVersion: policy.linkerd.io/v1beta1\nkind: Server\nmetadata: {name: older-version}",
      ].join("\n---\n"),
      "yaml",
      yaml,
    );
    expect(parsed.ignored.map((i) => `${i.apiVersion} ${i.kind}`)).toEqual([
      "apps/v1 Deployment",
      "serving.knative.dev/v1 Service",
    ]);
    expect(parsed.objects.map((o) => o.kind)).toEqual(["Server"]);
    expect(parsed.problems).toEqual([]);
  });

  it("reports an empty or comment-only file as empty", () => {
    expect(parseManifest("", "yaml", yaml).status).toBe("empty");
    expect(parseManifest("# nothing yet\n---\n", "yaml", yaml).status).toBe("empty");
    expect(parseManifest("  \n", "json", yaml).status).toBe("empty");
  });

  it("stores objects as an API server would: default namespace, metadata-only kinds, host ports", () => {
    const parsed = parseManifest(
      [
        "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  hostNetwork: true\n  containers:\n  - name: c\n    ports: [{containerPort: 4191}, {containerPort: 9000, hostPort: 19000}]",
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\n  namespace: shop\n  managedFields: [{manager: x}]\nspec: {replicas: 3}",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, namespace: ignored}",
      ].join("\n---\n"),
      "yaml",
      yaml,
    );
    const [pod, rs, node] = parsed.objects.map((o) => o.object);
    expect(pod?.metadata.namespace).toBe("default");
    expect(pod).toMatchObject({
      spec: {
        containers: [
          {
            ports: [
              { containerPort: 4191, hostPort: 4191 },
              { containerPort: 9000, hostPort: 19000 },
            ],
          },
        ],
      },
    });
    expect(rs).toEqual({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "rs", namespace: "shop" },
    });
    expect(node?.metadata).toEqual({ name: "n1" });
  });
});
