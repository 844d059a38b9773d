// A certificate authority made fresh for each run: a self-signed trust anchor and an issuer
// signed by it, both ECDSA P-256 like Linkerd's own, so that no test shares keys with another
// run or with anything outside the suite.
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { createPrivateKey, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

// Node's webcrypto is the Web Crypto API; its type differs from the DOM one only in name.
x509.cryptoProvider.set("default", webcrypto as Parameters<typeof x509.cryptoProvider.set>[1]);

const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const HOUR_MS = 3_600_000;

/** What a proxy needs on disk before it starts: its key and the CSR it sends to Certify. */
export interface ProxyKeyMaterial {
  /** PKCS#8 DER of the private key (the proxy's `key.p8`). */
  readonly keyPkcs8: Buffer;
  /** DER of a CSR for `name` (the proxy's `csr.der`). */
  readonly csrDer: Buffer;
}

export interface SignedLeaf {
  readonly leafDer: Buffer;
  readonly intermediatesDer: Buffer[];
  readonly validUntil: Date;
}

function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ECDSA_P256, true, [
    "sign",
    "verify",
  ]) as Promise<CryptoKeyPair>;
}

function serial(): string {
  return webcrypto
    .getRandomValues(new Uint8Array(8))
    .reduce((hex, b, i) => hex + (i === 0 ? b & 0x7f : b).toString(16).padStart(2, "0"), "");
}

export class TestPki {
  private constructor(
    readonly trustAnchor: x509.X509Certificate,
    private readonly issuer: x509.X509Certificate,
    private readonly issuerKey: CryptoKey,
    /** How long a signed leaf lives. */
    readonly leafLifetimeMs: number,
  ) {}

  static async create(leafLifetimeMs = HOUR_MS): Promise<TestPki> {
    const notBefore = new Date(Date.now() - 60_000);
    const notAfter = new Date(Date.now() + 24 * HOUR_MS);
    const rootKeys = await generateKeys();
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: "CN=root.linkerd.cluster.local",
      notBefore,
      notAfter,
      keys: rootKeys,
      signingAlgorithm: ECDSA_P256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 1, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    const issuerKeys = await generateKeys();
    const issuer = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: "CN=identity.linkerd.cluster.local",
      issuer: root.subject,
      notBefore,
      notAfter,
      publicKey: issuerKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: ECDSA_P256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(issuerKeys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    return new TestPki(root, issuer, issuerKeys.privateKey, leafLifetimeMs);
  }

  /**
   * A CA made of existing PEM (a trust anchor, an issuer it signed and the issuer's key, SEC1 or
   * PKCS#8): leaves it signs chain to a trust anchor others already use.
   */
  static async fromPem(
    trustAnchorPem: string,
    issuerPem: string,
    issuerKeyPem: string,
    leafLifetimeMs = HOUR_MS,
  ): Promise<TestPki> {
    const pkcs8 = createPrivateKey(issuerKeyPem).export({ format: "der", type: "pkcs8" });
    const key = await webcrypto.subtle.importKey("pkcs8", pkcs8, ECDSA_P256, false, ["sign"]);
    return new TestPki(
      new x509.X509Certificate(trustAnchorPem),
      new x509.X509Certificate(issuerPem),
      key,
      leafLifetimeMs,
    );
  }

  /** The trust anchor as PEM (the proxy's `LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS`). */
  get trustAnchorPem(): string {
    return this.trustAnchor.toString("pem");
  }

  /**
   * A fresh key and a CSR naming `name` as CN and DNS SAN, as the proxy injector would make;
   * `uris` are added as URI SANs (a SPIFFE ID, which a CA may copy into the certificate).
   */
  static async keyMaterial(name: string, uris: readonly string[] = []): Promise<ProxyKeyMaterial> {
    const keys = await generateKeys();
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: `CN=${name}`,
      keys,
      signingAlgorithm: ECDSA_P256,
      extensions: [
        new x509.SubjectAlternativeNameExtension([
          { type: "dns", value: name },
          ...uris.map((value) => ({ type: "url" as const, value })),
        ]),
      ],
    });
    const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
    return { keyPkcs8: Buffer.from(pkcs8), csrDer: Buffer.from(csr.rawData) };
  }

  /**
   * Signs the CSR as a leaf for `name`. Throws when the CSR's signature does not verify or it
   * does not ask for exactly that name, so a proxy cannot be certified as someone else.
   */
  async sign(csrDer: Uint8Array, name: string): Promise<SignedLeaf> {
    const csr = new x509.Pkcs10CertificateRequest(csrDer);
    if (!(await csr.verify())) throw new Error("the CSR's signature does not verify");
    const san = csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
    const dnsNames = san?.names.items.filter((n) => n.type === "dns").map((n) => n.value) ?? [];
    // URI SANs (a SPIFFE ID) are carried into the leaf, as SPIRE's would be.
    const uris = san?.names.items.filter((n) => n.type === "url").map((n) => n.value) ?? [];
    if (dnsNames.length > 0 && !dnsNames.every((n) => n === name)) {
      throw new Error(`the CSR names ${dnsNames.join(", ")}, not ${name}`);
    }
    const notBefore = new Date(Date.now() - 60_000);
    const validUntil = new Date(Date.now() + this.leafLifetimeMs);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${name}`,
      // The issuer's name as encoded in its certificate: a chain is matched byte for byte.
      issuer: this.issuer.subjectName,
      notBefore,
      notAfter: validUntil,
      publicKey: csr.publicKey,
      signingKey: this.issuerKey,
      signingAlgorithm: ECDSA_P256,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension(
          [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
          false,
        ),
        new x509.SubjectAlternativeNameExtension([
          { type: "dns", value: name },
          ...uris.map((value) => ({ type: "url" as const, value })),
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(this.issuer.publicKey),
      ],
    });
    return {
      leafDer: Buffer.from(leaf.rawData),
      intermediatesDer: [Buffer.from(this.issuer.rawData)],
      validUntil,
    };
  }
}
