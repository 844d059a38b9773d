import type { RequestOptions } from "node:https";
import { createSecureContext, type SecureContext } from "node:tls";

type Pem = string | Buffer | (string | Buffer)[] | undefined;

/**
 * The TLS context of the API server's connections, made once per set of credentials. Given
 * `ca`, `cert` and `key`, node builds a new context for every connection, parsing the PEMs and
 * the private key each time: the ten or so lists of a start open that many connections at
 * once. The credentials are still read per request (rotated files are picked up); a context is
 * made again only when their bytes change.
 */
export class TlsContexts {
  #ca: Pem;
  #cert: Pem;
  #key: Pem;
  #context: SecureContext | undefined;

  /** Sets `options.secureContext` from its `ca`, `cert` and `key`, unless it has one. */
  apply(options: RequestOptions & { secureContext?: SecureContext }): void {
    if (options.secureContext !== undefined) return;
    const { ca, cert, key } = options as { ca?: Pem; cert?: Pem; key?: Pem };
    if (ca === undefined && cert === undefined && key === undefined) return;
    if (
      this.#context === undefined ||
      !samePem(ca, this.#ca) ||
      !samePem(cert, this.#cert) ||
      !samePem(key, this.#key)
    ) {
      this.#context = createSecureContext({ ca, cert, key });
      [this.#ca, this.#cert, this.#key] = [ca, cert, key];
    }
    options.secureContext = this.#context;
  }
}

function samePem(a: Pem, b: Pem): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => samePem(item, b[i]));
  }
  // The kubeconfig's files and data arrive as Buffers: compared as they are, not copied.
  return bytesOf(a).equals(bytesOf(b));
}

function bytesOf(pem: string | Buffer): Buffer {
  return typeof pem === "string" ? Buffer.from(pem) : pem;
}
