// The real-API-server backend for a test file: one kube-apiserver and etcd (tooling/k8s-env)
// in the root namespace's loopback, started on first use and stopped after the file.
import { ensureBinaries, type KubeEnv, startKubeEnv } from "@destination/k8s-env";

/** The Service CIDR kind and kubeadm use, so the tests' 10.96.x.y cluster IPs are valid. */
export const SERVICE_CIDR = "10.96.0.0/12";

export class KubeBackend {
  private env: Promise<KubeEnv> | undefined;

  /** The running API server (started on the first call). */
  get(): Promise<KubeEnv> {
    this.env ??= ensureBinaries().then(() =>
      startKubeEnv({ apiServerArgs: [`--service-cluster-ip-range=${SERVICE_CIDR}`] }),
    );
    return this.env;
  }

  async stop(): Promise<void> {
    const env = await this.env?.catch(() => undefined);
    await env?.stop();
    this.env = undefined;
  }
}
