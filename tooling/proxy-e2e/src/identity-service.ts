// io.linkerd.proxy.identity.Identity/Certify for the tests: signs a proxy's CSR with the run's
// TestPki when its token is the one issued for the identity it asks for. It listens on a Unix
// socket; each namespace reaches it through a bridge (see NamespaceAgent.listen).

import { create } from "@destination/proto";
import {
  type CertifyRequest,
  CertifyResponseSchema,
  IdentityService,
  TimestampSchema,
} from "@destination/proto/identity";
import * as grpc from "@grpc/grpc-js";
import type { TestPki } from "./test-pki.js";

export interface RunningIdentityService {
  readonly socketPath: string;
  /** Makes a token that Certify accepts for `identity` only. */
  issueToken(identity: string): string;
  /** The identities certified so far, in order (one entry per successful Certify). */
  readonly certified: readonly string[];
  /** Every refused request, with why. */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

export async function startIdentityService(
  pki: TestPki,
  socketPath: string,
): Promise<RunningIdentityService> {
  const tokens = new Map<string, string>();
  const certified: string[] = [];
  const refused: string[] = [];
  const refuse = (
    callback: grpc.sendUnaryData<never>,
    code: grpc.status,
    details: string,
  ): void => {
    refused.push(details);
    callback({ code, details });
  };
  const server = new grpc.Server();
  server.addService(IdentityService, {
    certify(
      call: grpc.ServerUnaryCall<CertifyRequest, unknown>,
      callback: grpc.sendUnaryData<never>,
    ) {
      const { identity, token, certificateSigningRequest } = call.request;
      const want = tokens.get(Buffer.from(token).toString("utf8"));
      if (want === undefined) {
        return refuse(callback, grpc.status.UNAUTHENTICATED, `unknown token for ${identity}`);
      }
      if (want !== identity) {
        return refuse(
          callback,
          grpc.status.FAILED_PRECONDITION,
          `token is for ${want}, request is for ${identity}`,
        );
      }
      pki.sign(certificateSigningRequest, identity).then(
        (leaf) => {
          certified.push(identity);
          const ms = leaf.validUntil.getTime();
          callback(
            null,
            create(CertifyResponseSchema, {
              leafCertificate: leaf.leafDer,
              intermediateCertificates: leaf.intermediatesDer,
              validUntil: create(TimestampSchema, {
                seconds: BigInt(Math.floor(ms / 1000)),
                nanos: (ms % 1000) * 1_000_000,
              }),
            }) as never,
          );
        },
        (err: Error) => refuse(callback, grpc.status.INVALID_ARGUMENT, err.message),
      );
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  let counter = 0;
  return {
    socketPath,
    issueToken(identity) {
      counter += 1;
      const token = `test-token-${counter}-${Math.random().toString(36).slice(2)}`;
      tokens.set(token, identity);
      return token;
    },
    certified,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 1000).unref();
      }),
  };
}
