// Certificates for one test environment, made with the openssl CLI (Node's crypto cannot issue
// X.509 certificates): a self-signed CA, a serving cert for 127.0.0.1/localhost, and an admin
// client cert in system:masters. The service-account signing key is made with Node's crypto.
import { execFileSync, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface EnvCerts {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  saPublicKey: string;
  saPrivateKey: string;
  caPem: string;
  adminCertPem: string;
  adminKeyPem: string;
}

/** The user name of the admin client certificate (group system:masters). */
export const ADMIN_USER = "k8s-env-admin";

export function checkOpenssl(): void {
  const r = spawnSync("openssl", ["version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    throw new Error(
      "k8s-env: the `openssl` CLI is needed to make the test certificates but was not found; install it (apt-get install -y openssl)",
    );
  }
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

function ecKey(cwd: string, file: string): void {
  openssl(
    ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", file],
    cwd,
  );
}

function issue(
  dir: string,
  name: string,
  subject: string,
  extensions: string[],
): { cert: string; key: string } {
  const key = `${name}.key`;
  const csr = `${name}.csr`;
  const cert = `${name}.crt`;
  const ext = `${name}.ext`;
  ecKey(dir, key);
  openssl(["req", "-new", "-key", key, "-subj", subject, "-out", csr], dir);
  writeFileSync(join(dir, ext), `${extensions.join("\n")}\n`);
  openssl(
    [
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "30",
      "-sha256",
      "-extfile",
      ext,
      "-out",
      cert,
    ],
    dir,
  );
  return { cert: join(dir, cert), key: join(dir, key) };
}

/** Writes all key material into `dir` (which must exist). */
export function generateCerts(dir: string): EnvCerts {
  checkOpenssl();
  ecKey(dir, "ca.key");
  openssl(
    [
      "req",
      "-x509",
      "-new",
      "-key",
      "ca.key",
      "-subj",
      "/CN=k8s-env-ca",
      "-days",
      "30",
      "-sha256",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
      "-out",
      "ca.crt",
    ],
    dir,
  );
  const serving = issue(dir, "serving", "/CN=kube-apiserver", [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local",
  ]);
  const admin = issue(dir, "admin", `/O=system:masters/CN=${ADMIN_USER}`, [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    "extendedKeyUsage=clientAuth",
  ]);
  const sa = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const saPrivateKey = join(dir, "sa.key");
  const saPublicKey = join(dir, "sa.pub");
  writeFileSync(saPrivateKey, sa.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(saPublicKey, sa.publicKey.export({ type: "spki", format: "pem" }));
  return {
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    servingCert: serving.cert,
    servingKey: serving.key,
    adminCert: admin.cert,
    adminKey: admin.key,
    saPublicKey,
    saPrivateKey,
    caPem: readFileSync(join(dir, "ca.crt"), "utf8"),
    adminCertPem: readFileSync(admin.cert, "utf8"),
    adminKeyPem: readFileSync(admin.key, "utf8"),
  };
}
