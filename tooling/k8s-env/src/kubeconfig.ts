import { writeFileSync } from "node:fs";
import { stringify } from "yaml";

export type KubeconfigUser =
  | { name: string; clientCertificatePem: string; clientKeyPem: string }
  | { name: string; token: string };

/** Renders a single-cluster, single-user kubeconfig with everything embedded. */
export function renderKubeconfig(
  server: string,
  caPem: string,
  user: KubeconfigUser,
  namespace?: string,
): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const userEntry =
    "token" in user
      ? { token: user.token }
      : {
          "client-certificate-data": b64(user.clientCertificatePem),
          "client-key-data": b64(user.clientKeyPem),
        };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "k8s-env", cluster: { server, "certificate-authority-data": b64(caPem) } }],
    users: [{ name: user.name, user: userEntry }],
    contexts: [
      {
        name: "k8s-env",
        context: { cluster: "k8s-env", user: user.name, ...(namespace ? { namespace } : {}) },
      },
    ],
    "current-context": "k8s-env",
    preferences: {},
  });
}

export function writeKubeconfig(
  path: string,
  ...args: Parameters<typeof renderKubeconfig>
): string {
  writeFileSync(path, renderKubeconfig(...args), { mode: 0o600 });
  return path;
}
