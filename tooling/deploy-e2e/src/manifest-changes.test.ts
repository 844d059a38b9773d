import { describe, expect, it } from "vitest";
import { manifestChanges } from "./manifest-changes.js";

const deployment = (destinationImage: string, extra = "") => `
# Source: chart/templates/destination.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: linkerd-destination, namespace: linkerd}
spec:
  template:
    spec:
      containers:
        - name: destination
          image: ${destinationImage}
          args: [destination, -addr=:8086]
          resources: null
        - name: sp-validator
          image: upstream:1
${extra}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: linkerd-destination, namespace: linkerd}
`;

describe("manifestChanges", () => {
  it("finds nothing between the same objects written differently", () => {
    const reformatted = `
apiVersion: v1
kind: ServiceAccount
metadata:
  namespace: linkerd
  name: linkerd-destination
---
kind: Deployment
apiVersion: apps/v1
metadata: {namespace: linkerd, name: linkerd-destination}
spec: {template: {spec: {containers: [
  {image: "upstream:1", name: destination, args: ["destination", "-addr=:8086"]},
  {name: sp-validator, image: upstream:1}]}}}
`;
    expect(manifestChanges(deployment("upstream:1"), reformatted)).toEqual([]);
  });

  it("names a container's changed image by the container's name", () => {
    expect(manifestChanges(deployment("upstream:1"), deployment("ours:2"))).toEqual([
      {
        object: "Deployment linkerd/linkerd-destination",
        path: "spec.template.spec.containers[destination].image",
        before: "upstream:1",
        after: "ours:2",
      },
    ]);
  });

  it("reports a field added, an argument changed, and objects added or removed", () => {
    const changed = deployment("upstream:1")
      .replace("-addr=:8086", "-addr=:9999")
      .replace("image: upstream:1\n", "image: upstream:1\n          command: [node]\n")
      .replace(
        /---[\s\S]*$/,
        "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: linkerd}\n",
      );
    expect(manifestChanges(deployment("upstream:1"), changed)).toEqual([
      {
        object: "Deployment linkerd/linkerd-destination",
        path: "spec.template.spec.containers[destination].args[1]",
        before: "-addr=:8086",
        after: "-addr=:9999",
      },
      {
        object: "Deployment linkerd/linkerd-destination",
        path: "spec.template.spec.containers[destination].command",
        before: undefined,
        after: ["node"],
      },
      {
        object: "Secret linkerd/s",
        path: "",
        before: undefined,
        after: { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "linkerd" } },
      },
      {
        object: "ServiceAccount linkerd/linkerd-destination",
        path: "",
        before: {
          apiVersion: "v1",
          kind: "ServiceAccount",
          metadata: { name: "linkerd-destination", namespace: "linkerd" },
        },
        after: undefined,
      },
    ]);
  });

  it("reports reordered containers as a change of the whole list", () => {
    const swapped = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: linkerd-destination, namespace: linkerd}
spec: {template: {spec: {containers: [
  {name: sp-validator, image: upstream:1},
  {name: destination, image: upstream:1, args: [destination, -addr=:8086]}]}}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: linkerd-destination, namespace: linkerd}
`;
    const changes = manifestChanges(deployment("upstream:1"), swapped);
    expect(changes.map((c) => c.path)).toEqual(["spec.template.spec.containers"]);
  });

  it("refuses two objects of the same identity", () => {
    const twice = `${deployment("a:1")}\n---\n${deployment("a:1")}`;
    expect(() => manifestChanges(twice, "")).toThrow(/two objects are/);
  });
});
