import { writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadKubeConfig } from "./kube-config.js";
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
    expect(config.server).toBe("https://10.0.0.1:6443");
    expect(config.context).toBe("a");
    const options = await applied(config);
    expect(String(options.ca)).toBe("CA");
    expect(String(options.cert)).toBe("CERT");
    expect(String(options.key)).toBe("KEY");
    expect(options.servername).toBe("api.local");
    expect(options.rejectUnauthorized).toBeUndefined();
    expect(options.headers).toEqual({ Authorization: "Bearer t0k", "Impersonate-User": "someone" });
  });

  it("resolves files relative to the kubeconfig and rereads a token file per request", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "ca.crt"), "CA-FILE");
    writeFileSync(join(dir, "token"), "first\n");
    writeFileSync(
      join(dir, "config"),
      [
        "current-context: a",
        "clusters:",
        "- name: c\n  cluster:\n    server: https://h:1\n    certificate-authority: ca.crt",
        "users:",
        "- name: u\n  user:\n    token-file: token",
        "contexts:",
        "- name: a\n  context: {cluster: c, user: u}",
      ].join("\n"),
    );
    const config = loadKubeConfig({ kubeconfigPath: join(dir, "config") });
    expect(String((await applied(config)).ca)).toBe("CA-FILE");
    expect((await applied(config)).headers).toEqual({ Authorization: "Bearer first" });
    writeFileSync(join(dir, "token"), "rotated");
    expect((await applied(config)).headers).toEqual({ Authorization: "Bearer rotated" });
  });

  it("merges $KUBECONFIG files, the first to name an entry winning", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "one"),
      "current-context: a\nclusters:\n- name: c\n  cluster: {server: https://one:1}\n",
    );
    writeFileSync(
      join(dir, "two"),
      [
        "current-context: b",
        "clusters:",
        "- name: c\n  cluster: {server: https://two:1}",
        "contexts:",
        "- name: a\n  context: {cluster: c}",
      ].join("\n"),
    );
    vi.stubEnv("KUBECONFIG", [join(dir, "one"), join(dir, "two")].join(delimiter));
    const config = loadKubeConfig();
    expect(config.context).toBe("a");
    expect(config.server).toBe("https://one:1");
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
    expect(config.server).toBe("https://[fd00::1]:443");
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "");
    expect(() => loadKubeConfig({ inCluster: true })).toThrow(/not running in a cluster/);
  });
});
