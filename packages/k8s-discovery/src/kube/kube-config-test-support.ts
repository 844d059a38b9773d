// Shared by the kubeconfig tests (unit and e2e): temporary folders removed after each test, and
// the HTTPS options a loaded kubeconfig produces, certificates.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { loadKubeConfig } from "./kube-config.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Runs `step` after the current test, after the steps registered later. */
export function afterThisTest(step: () => unknown): void {
  cleanup.push(step);
}

/** A new temporary folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-config-test-"));
  afterThisTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The HTTPS request options the kubeconfig's credentials and CA produce. */
export async function applied(config: ReturnType<typeof loadKubeConfig>): Promise<RequestOptions> {
  const options: RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  return options;
}

/** A self-signed P-256 certificate for `cn` (also valid for 127.0.0.1), made with openssl. */
export function selfSigned(dir: string, cn: string): { cert: string; key: string } {
  const [cert, key] = [join(dir, `${cn}.crt`), join(dir, `${cn}.key`)];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      `/CN=${cn}`,
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-days",
      "1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}
