// The cluster the control plane runs against: tooling/k8s-env's real kube-apiserver and etcd,
// with the CRDs of the Linkerd release (rendered/linkerd-crds.yaml) and the `linkerd`
// namespace's objects from the rendered chart applied, as `helm install` would leave them
// (the Deployments exist, nothing runs them: the policy controller only needs to see them).
import { ensureBinaries, type KubeEnv, startKubeEnv } from "@destination/k8s-env";
import type { KubeObject } from "@destination/proxy-e2e/cluster-objects";
import { SERVICE_CIDR } from "@destination/proxy-e2e/kube-backend";
import type { LinkerdRelease } from "./release.js";
import type { RenderedChart } from "./rendered-chart.js";

export const CONTROL_PLANE_NAMESPACE = "linkerd";
const API_SERVER_NODE_IP = "10.250.0.1";

/** The projected token the chart mounts for a proxy: its audience and lifetime. */
export interface IdentityTokenSpec {
  readonly audience: string;
  readonly expirationSeconds: number;
}

interface ProjectedVolume {
  name: string;
  projected?: {
    sources: { serviceAccountToken?: { audience?: string; expirationSeconds?: number } }[];
  };
}

/** The `linkerd-identity-token` volume the injector adds beside every proxy. */
export function identityTokenSpec(chart: RenderedChart): IdentityTokenSpec {
  const spec = chart.deployment("linkerd-destination").spec.template.spec as unknown as {
    volumes: ProjectedVolume[];
  };
  const volume = spec.volumes.find((v) => v.name === "linkerd-identity-token");
  const token = volume?.projected?.sources.find((s) => s.serviceAccountToken)?.serviceAccountToken;
  if (token?.audience === undefined) throw new Error("the chart mounts no linkerd-identity-token");
  return { audience: token.audience, expirationSeconds: token.expirationSeconds ?? 86_400 };
}

export class KubeCluster {
  private constructor(
    readonly env: KubeEnv,
    private readonly tokenSpec: IdentityTokenSpec,
  ) {}

  static async start(release: LinkerdRelease, chart: RenderedChart): Promise<KubeCluster> {
    await ensureBinaries();
    const env = await startKubeEnv({
      // The release's own CRDs (all of policy.linkerd.io, not only the three k8s-env carries).
      installCrds: false,
      extraCrdFiles: [release.crdsYaml],
      apiServerArgs: [`--service-cluster-ip-range=${SERVICE_CIDR}`],
    });
    const cluster = new KubeCluster(env, identityTokenSpec(chart));
    try {
      await env.apply([namespace(CONTROL_PLANE_NAMESPACE)]);
      await env.apply(chart.namespaceObjects(CONTROL_PLANE_NAMESPACE));
      await env.apply([apiServerSlice(env)]);
    } catch (err) {
      await env.stop();
      throw err;
    }
    return cluster;
  }

  async ensureServiceAccount(name: string, ns = "default"): Promise<void> {
    await this.env.apply([
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } },
    ]);
  }

  /**
   * A token for `serviceAccount` made through the TokenRequest API with the audience and
   * lifetime of the chart's projected volume: what the kubelet writes to a proxy's token file.
   */
  async identityToken(serviceAccount: string, ns = "default"): Promise<string> {
    await this.ensureServiceAccount(serviceAccount, ns);
    const res = await this.env.request<{ status?: { token?: string } }>(
      "POST",
      `/api/v1/namespaces/${ns}/serviceaccounts/${serviceAccount}/token`,
      {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: {
          audiences: [this.tokenSpec.audience],
          expirationSeconds: this.tokenSpec.expirationSeconds,
        },
      },
    );
    const token = res.body.status?.token;
    if (res.status !== 201 || token === undefined) {
      throw new Error(`TokenRequest for ${ns}/${serviceAccount}: ${res.status} ${res.text}`);
    }
    return token;
  }

  /** Who holds a Lease of the control plane's namespace (undefined: no Lease, or no holder). */
  async leaseHolder(name: string): Promise<string | undefined> {
    const res = await this.env.request<{ spec?: { holderIdentity?: string } }>(
      "GET",
      `/apis/coordination.k8s.io/v1/namespaces/${CONTROL_PLANE_NAMESPACE}/leases/${name}`,
    );
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`Lease ${name}: ${res.status} ${res.text}`);
    return res.body.spec?.holderIdentity || undefined;
  }

  stop(): Promise<void> {
    return this.env.stop();
  }
}

function namespace(name: string): KubeObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

/**
 * The `kubernetes` Service's EndpointSlice, which kube-controller-manager (not run here) writes in
 * every cluster. Upstream's destination refuses to start with EndpointSlices enabled when the
 * cluster holds none ("no EndpointSlice resources exist in the cluster").
 */
function apiServerSlice(env: KubeEnv): KubeObject {
  const port = Number(new URL(env.server).port);
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: {
        "kubernetes.io/service-name": "kubernetes",
        "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
      },
    },
    addressType: "IPv4",
    // A control-plane node's address: a slice may not hold the API server's loopback one, and
    // nothing in the suite connects to the `kubernetes` Service.
    endpoints: [{ addresses: [API_SERVER_NODE_IP], conditions: { ready: true } }],
    ports: [{ name: "https", port, protocol: "TCP" }],
  };
}
