import { parseAllDocuments } from "yaml";

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export type Manifests = string | KubeObject | KubeObject[];

/** Splits YAML/JSON text (multi-document, `kind: List` too) or objects into single objects. */
export function parseManifests(input: Manifests): KubeObject[] {
  const raw: unknown[] = [];
  if (typeof input === "string") {
    for (const doc of parseAllDocuments(input, { merge: true })) {
      if (doc.errors.length > 0)
        throw new Error(`k8s-env: invalid YAML: ${doc.errors[0]?.message}`);
      const value: unknown = doc.toJS({ maxAliasCount: -1 });
      if (value !== null && value !== undefined) raw.push(value);
    }
  } else if (Array.isArray(input)) {
    raw.push(...input);
  } else {
    raw.push(input);
  }
  const out: KubeObject[] = [];
  for (const value of raw) {
    if (typeof value !== "object" || value === null)
      throw new Error("k8s-env: a manifest is not an object");
    const obj = value as KubeObject;
    if (typeof obj.kind === "string" && obj.kind.endsWith("List") && Array.isArray(obj.items)) {
      out.push(...parseManifests(obj.items as KubeObject[]));
      continue;
    }
    if (typeof obj.apiVersion !== "string" || typeof obj.kind !== "string") {
      throw new Error("k8s-env: a manifest lacks apiVersion or kind");
    }
    if (typeof obj.metadata?.name !== "string") {
      throw new Error(`k8s-env: a ${obj.kind} manifest lacks metadata.name`);
    }
    out.push(obj);
  }
  return out;
}

/** "/api/v1" for the core group, "/apis/<group>/<version>" otherwise. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

export interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
}

/** The REST path of a named object, given its resource. */
export function objectPath(obj: KubeObject, resource: ApiResource): string {
  const base = groupVersionPath(obj.apiVersion);
  const name = encodeURIComponent(obj.metadata.name ?? "");
  if (!resource.namespaced) return `${base}/${resource.name}/${name}`;
  const ns = encodeURIComponent(obj.metadata.namespace ?? "default");
  return `${base}/namespaces/${ns}/${resource.name}/${name}`;
}
