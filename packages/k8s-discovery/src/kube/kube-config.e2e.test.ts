import { describe, expect, it, vi } from "vitest";
import { createManifestsCluster } from "../manifests/manifests-cluster.js";
import { FakeApiServer } from "./fake-api-server.js";
import { createKubeCluster } from "./kube-cluster.js";
import { loadKubeConfig } from "./kube-config.js";
import { afterThisTest, applied, tempDir } from "./kube-config-test-support.js";

// These tests open a socket (a fake API server) and run an exec plugin (a child process).

// Importing client-node is recorded, so the tests can tell when it was loaded.
const clientNode = vi.hoisted(() => ({ imported: 0 }));
vi.mock("@kubernetes/client-node", async (importOriginal) => {
  clientNode.imported++;
  return await importOriginal();
});

describe("@kubernetes/client-node is loaded only when a kubeconfig needs it", () => {
  it("is not loaded by the manifests backend nor by a cluster with token credentials", async () => {
    const before = clientNode.imported;
    const dir = tempDir();
    const manifests = createManifestsCluster({ dir });
    await manifests.start();
    await manifests.whenSynced();
    await manifests.stop();
    const server = new FakeApiServer();
    await server.start();
    afterThisTest(() => server.close());
    const cluster = createKubeCluster({
      kubeconfigYaml: server.kubeconfigYaml(),
      context: "fake",
      enableEndpointSlices: true,
      resyncMs: 0,
    });
    afterThisTest(() => cluster.stop());
    await cluster.start();
    await cluster.whenSynced();
    expect(clientNode.imported).toBe(before);
  });

  it("is loaded for an exec plugin, which it then runs", async () => {
    const credential = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: "from-exec" },
    });
    const config = loadKubeConfig({
      kubeconfigYaml: [
        "current-context: a",
        "clusters:",
        "- name: c\n  cluster: {server: https://h:1}",
        "users:",
        `- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${process.execPath}\n      args: ["-e", ${JSON.stringify(`process.stdout.write(${JSON.stringify(credential)})`)}]\n      interactiveMode: Never`,
        "contexts:",
        "- name: a\n  context: {cluster: c, user: u}",
      ].join("\n"),
    });
    const before = clientNode.imported;
    const options = await applied(config);
    expect(clientNode.imported).toBeGreaterThan(before);
    expect((options.headers as Record<string, string>).Authorization).toBe("Bearer from-exec");
  });
});
