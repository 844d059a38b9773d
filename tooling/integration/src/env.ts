// One real API server per test file, set up the way these tests need it.
import { type KubeEnv, type StartKubeEnvOptions, startKubeEnv } from "@destination/k8s-env";
import { ApiWriter, type KubeObject } from "./api.js";

/**
 * The Service CIDR of the test API servers: the one kind and kubeadm clusters use, so the tests'
 * cluster IPs (10.96.x.y) are valid, as in the packages' own tests.
 */
export const SERVICE_CIDR = "10.96.0.0/12";

export interface IntegrationEnv {
  readonly env: KubeEnv;
  readonly api: ApiWriter;
  stop(): Promise<void>;
}

/** Starts etcd and kube-apiserver (binaries provisioned by the global setup). */
export async function startIntegrationEnv(
  options: StartKubeEnvOptions = {},
): Promise<IntegrationEnv> {
  const env = await startKubeEnv({
    ...options,
    apiServerArgs: [`--service-cluster-ip-range=${SERVICE_CIDR}`, ...(options.apiServerArgs ?? [])],
  });
  return { env, api: new ApiWriter(env), stop: () => env.stop() };
}

const POLICY = "integration-no-kubernetes-service";

/**
 * Deletes the `default/kubernetes` Service and keeps kube-apiserver from creating it again
 * (its controller does within about 10 s) with a ValidatingAdmissionPolicy that denies creating
 * it. A test that compares the full contents of the cluster then sees only its own objects.
 */
export async function removeKubernetesService({ api }: IntegrationEnv): Promise<void> {
  const policy: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: POLICY },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["services"] },
        ],
      },
      validations: [
        {
          expression:
            "!(object.metadata.namespace == 'default' && object.metadata.name == 'kubernetes')",
          message: "the integration tests keep the cluster free of the kubernetes Service",
        },
      ],
    },
  };
  const binding: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: POLICY },
    spec: { policyName: POLICY, validationActions: ["Deny"] },
  };
  await api.apply(policy, binding);
  const probe: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kubernetes", namespace: "default" },
    spec: { ports: [{ port: 443 }] },
  };
  // The policy takes effect once the API server has loaded it.
  const deadline = Date.now() + 30_000;
  for (;;) {
    await api.delete("Service", "default", "kubernetes");
    const res = await api.dryRunCreate(probe);
    if (res.status === 422 || res.status === 403) break;
    if (Date.now() > deadline) {
      throw new Error(`integration: the admission policy did not take effect (${res.status})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await api.delete("Service", "default", "kubernetes");
}
