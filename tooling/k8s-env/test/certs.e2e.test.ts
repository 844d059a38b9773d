// The test certificates, made and checked with the openssl CLI (a child process).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateCerts } from "../src/certs.js";
import { renderKubeconfig } from "../src/index.js";

describe("certificates and kubeconfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "k8s-env-unit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("issues a serving cert for 127.0.0.1 and an admin cert in system:masters", () => {
    const certs = generateCerts(dir);
    const text = (file: string) =>
      execFileSync("openssl", ["x509", "-in", file, "-noout", "-text"], { encoding: "utf8" });
    expect(text(certs.servingCert)).toMatch(/IP Address:127\.0\.0\.1/);
    expect(text(certs.servingCert)).toMatch(/DNS:localhost/);
    expect(text(certs.adminCert)).toMatch(/O\s*=\s*system:masters/);
    execFileSync("openssl", [
      "verify",
      "-CAfile",
      certs.caCert,
      certs.servingCert,
      certs.adminCert,
    ]);

    const kubeconfig = parse(
      renderKubeconfig("https://127.0.0.1:1", certs.caPem, {
        name: "admin",
        clientCertificatePem: certs.adminCertPem,
        clientKeyPem: certs.adminKeyPem,
      }),
    );
    expect(kubeconfig["current-context"]).toBe("k8s-env");
    expect(
      Buffer.from(
        kubeconfig.clusters[0].cluster["certificate-authority-data"],
        "base64",
      ).toString(),
    ).toBe(certs.caPem);
  });
});
