import type { Secret } from "@destination/core";
import { describe, expect, it } from "vitest";
import { secretSourceOf } from "../secret-source.js";
import { MemoryCluster } from "./memory-cluster.js";

const secret = (name: string, namespace: string): Secret => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace },
  type: "Opaque",
  data: { kubeconfig: "e30=" },
});

describe("MemoryCluster Secrets, for the multicluster cluster store", () => {
  it("replays a namespace's Secrets, then streams its applies and deletes, and stops", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(secret("early", "linkerd"));
    cluster.apply(secret("elsewhere", "other"));
    const seen: string[] = [];
    const store = {
      apply: (s: Secret) => seen.push(`apply ${s.metadata.name}`),
      remove: (_ns: string | undefined, name: string) => seen.push(`remove ${name}`),
      replace: (all: readonly Secret[]) =>
        seen.push(`replace ${all.map((s) => s.metadata.name).join(",")}`),
    };
    const source = secretSourceOf(cluster);
    expect(source).toBe(cluster);
    const watch = cluster.watchSecrets("linkerd", store);
    cluster.apply(secret("late", "linkerd"));
    cluster.apply(secret("ignored", "other"));
    cluster.delete("Secret", "linkerd", "early");
    await watch.stop();
    cluster.apply(secret("after-stop", "linkerd"));
    expect(seen).toEqual(["replace early", "apply late", "remove early"]);
  });

  it("keeps Secrets out of every cache and metric kind", () => {
    const cluster = new MemoryCluster();
    cluster.apply(secret("s", "linkerd"));
    expect(cluster.servedKinds.has("Pod")).toBe(true);
    expect([...cluster.servedKinds]).not.toContain("Secret");
    expect(cluster.pods.size + cluster.services.size).toBe(0);
  });
});
