// What SPIRE is to an external workload's proxy in a real mesh expansion: a certificate authority
// that puts the workload's SPIFFE ID in its certificate. Upstream's identity controller refuses a
// CSR with URIs ("cannot validate URIs"), so proxy-e2e's Certify service stands in for SPIRE,
// signing with the release's own issuer (pki/), so the certificate chains to the same trust
// anchor as every pod's. Reached in the workloads' namespace at WORKLOAD_IDENTITY_PORT.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type RunningIdentityService,
  startIdentityService,
} from "@destination/proxy-e2e/identity-service";
import { TestPki } from "@destination/proxy-e2e/test-pki";

export const WORKLOAD_IDENTITY_PORT = 8081;

export async function startWorkloadIdentity(
  pkiDir: string,
  socketPath: string,
): Promise<RunningIdentityService> {
  const pem = (file: string) => readFileSync(join(pkiDir, file), "utf8");
  const pki = await TestPki.fromPem(pem("ca.crt"), pem("issuer.crt"), pem("issuer.key"));
  return startIdentityService(pki, socketPath);
}
