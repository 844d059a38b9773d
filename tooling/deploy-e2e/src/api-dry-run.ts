// Every object of a manifest set sent to a real kube-apiserver as a create with `dryRun=All`:
// validated, defaulted and admitted exactly as a real create, and stored nowhere. Strict field
// validation makes a field the API does not know an error rather than a silent drop.
import type { KubeEnv, KubeObject } from "@destination/k8s-env";

export interface DryRunResult {
  /** `Deployment linkerd/linkerd-destination` */
  readonly object: string;
  readonly status: number;
  /** The object as the API server would store it (or the Status of a refusal). */
  readonly body: KubeObject;
  /** The start of the response, for a failure message. */
  readonly text: string;
}

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const groupVersionPath = (apiVersion: string) =>
  apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;

/** Dry-run creates each object, one after another, through the API server's discovery. */
export async function dryRunCreateAll(
  env: KubeEnv,
  objects: KubeObject[],
): Promise<DryRunResult[]> {
  const discovery = new Map<string, ApiResource[]>();
  const resourceOf = async (obj: KubeObject): Promise<ApiResource> => {
    let resources = discovery.get(obj.apiVersion);
    if (!resources) {
      const res = await env.request<{ resources: ApiResource[] }>(
        "GET",
        groupVersionPath(obj.apiVersion),
      );
      if (res.status !== 200) throw new Error(`no API group ${obj.apiVersion}: ${res.status}`);
      resources = res.body.resources;
      discovery.set(obj.apiVersion, resources);
    }
    const found = resources.find((r) => r.kind === obj.kind && !r.name.includes("/"));
    if (!found) throw new Error(`the API server serves no ${obj.kind} in ${obj.apiVersion}`);
    return found;
  };

  const results: DryRunResult[] = [];
  for (const obj of objects) {
    const resource = await resourceOf(obj);
    const ns = obj.metadata.namespace;
    const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(ns ?? "default")}` : "";
    const path = `${groupVersionPath(obj.apiVersion)}${scope}/${resource.name}?dryRun=All&fieldValidation=Strict`;
    const res = await env.request<KubeObject>("POST", path, JSON.stringify(obj));
    results.push({
      object: `${obj.kind} ${ns ? `${ns}/` : ""}${obj.metadata.name}`,
      status: res.status,
      body: res.body,
      text: res.text.slice(0, 500),
    });
  }
  return results;
}
