import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apiServerOf, loadKubeConfig } from "./kube-config.js";
import { applied, tempDir } from "./kube-config-test-support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("loadKubeConfig", () => {
  it("reads server, CA, client certificate and token of the current context", async () => {
    const config = loadKubeConfig({
      kubeconfigYaml: [
        "current-context: a",
        "clusters:",
        `- name: c\n  cluster:\n    server: https://10.0.0.1:6443/\n    certificate-authority-data: ${b64("CA")}\n    tls-server-name: api.local`,
        "users:",
        `- name: u\n  user:\n    token: t0k\n    client-certificate-data: ${b64("CERT")}\n    client-key-data: ${b64("KEY")}\n    as: someone`,
        "contexts:",
        "- name: a\n  context:\n    cluster: c\n    user: u",
      ].join("\n"),
    });
    expect(apiServerOf(config)).toBe("https://10.0.0.1:6443");
    expect(config.getCurrentContext()).toBe("a");
    const options = await applied(config);
    expect(String(options.ca)).toBe("CA");
    expect(String(options.cert)).toBe("CERT");
    expect(String(options.key)).toBe("KEY");
    expect(options.servername).toBe("api.local");
    expect(options.rejectUnauthorized).toBeUndefined();
    expect(options.headers).toEqual({ Authorization: "Bearer t0k", "Impersonate-User": "someone" });
  });

  it("resolves the CA relative to the kubeconfig and rereads it per request", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "ca.crt"), "CA-FILE");
    writeFileSync(
      join(dir, "config"),
      [
        "current-context: a",
        "clusters:",
        "- name: c\n  cluster:\n    server: https://h:1\n    certificate-authority: ca.crt",
        "users:",
        "- name: u\n  user:\n    token: t",
        "contexts:",
        "- name: a\n  context: {cluster: c, user: u}",
      ].join("\n"),
    );
    const config = loadKubeConfig({ kubeconfigPath: join(dir, "config") });
    expect(String((await applied(config)).ca)).toBe("CA-FILE");
    writeFileSync(join(dir, "ca.crt"), "ROTATED-CA");
    expect(String((await applied(config)).ca)).toBe("ROTATED-CA");
  });

  it("merges $KUBECONFIG files: the context in one, its cluster and user in the other", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "one"),
      "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n",
    );
    writeFileSync(
      join(dir, "two"),
      [
        "current-context: b",
        "clusters:",
        "- name: c\n  cluster: {server: https://two:1}",
        "users:",
        "- name: u\n  user: {token: from-two}",
        "contexts:",
        "- name: b\n  context: {cluster: c}",
      ].join("\n"),
    );
    vi.stubEnv("KUBECONFIG", [join(dir, "one"), join(dir, "two")].join(delimiter));
    const config = loadKubeConfig();
    expect(config.getCurrentContext()).toBe("a");
    expect(apiServerOf(config)).toBe("https://two:1");
    expect((await applied(config)).headers).toEqual({ Authorization: "Bearer from-two" });
    expect(apiServerOf(loadKubeConfig({ context: "b" }))).toBe("https://two:1");
  });

  it("rejects $KUBECONFIG files that both name a cluster, with the name", () => {
    const dir = tempDir();
    const file = "clusters:\n- name: c\n  cluster: {server: https://h:1}\n";
    writeFileSync(join(dir, "one"), file);
    writeFileSync(join(dir, "two"), file);
    vi.stubEnv("KUBECONFIG", [join(dir, "one"), join(dir, "two")].join(delimiter));
    expect(() => loadKubeConfig()).toThrow(/cannot load the kubeconfig: Duplicate cluster: c/);
  });

  it("rejects an unknown context and a context without a server", () => {
    const yaml = "contexts:\n- name: a\n  context: {cluster: missing}\n";
    expect(() => loadKubeConfig({ kubeconfigYaml: yaml, context: "nope" })).toThrow(
      /no context named "nope"/,
    );
    expect(() => loadKubeConfig({ kubeconfigYaml: yaml, context: "a" })).toThrow(
      /names no API server/,
    );
  });

  it("reads the service account in a cluster", async () => {
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "fd00::1");
    vi.stubEnv("KUBERNETES_SERVICE_PORT", "443");
    const config = loadKubeConfig({ inCluster: true });
    expect(apiServerOf(config)).toBe("https://[fd00::1]:443");
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "");
    expect(() => loadKubeConfig({ inCluster: true })).toThrow(/not running in a cluster/);
  });
});
