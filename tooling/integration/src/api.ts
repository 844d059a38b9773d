// Writing to a real API server the way the cluster's own components would: server-side apply of
// the object, then of its status through the `/status` subresource (a kubelet's job here: the
// API server drops the status of a created pod), deletes that take effect at once (no kubelet to
// confirm a graceful pod delete, no garbage collector to clear an `orphan` finalizer).
import { createHash } from "node:crypto";
import { RESOURCE_KINDS, type ResourceKind } from "@destination/k8s-discovery";
import type { KubeEnv, KubeResponse } from "@destination/k8s-env";

/** A Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid?: string }[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** The field manager of every write the tests make. */
export const FIELD_MANAGER = "integration-test";

/** The image a test pod names; nothing pulls it (no kubelet). */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

interface ApiType {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const CLUSTER_SCOPED = new Set(["Node", "Namespace", "ClusterRole", "ClusterRoleBinding"]);

/** The API types the tests write besides the cached kinds of `RESOURCE_KINDS`. */
const OTHER_TYPES: Record<string, ApiType> = {
  Namespace: { group: "", version: "v1", plural: "namespaces", namespaced: false },
  ServiceAccount: { group: "", version: "v1", plural: "serviceaccounts", namespaced: true },
  Deployment: { group: "apps", version: "v1", plural: "deployments", namespaced: true },
  PodDisruptionBudget: {
    group: "policy",
    version: "v1",
    plural: "poddisruptionbudgets",
    namespaced: true,
  },
  ClusterRole: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterroles",
    namespaced: false,
  },
  ClusterRoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    namespaced: false,
  },
  Role: { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", namespaced: true },
  RoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "rolebindings",
    namespaced: true,
  },
  ValidatingAdmissionPolicy: {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicies",
    namespaced: false,
  },
  ValidatingAdmissionPolicyBinding: {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicybindings",
    namespaced: false,
  },
};

function apiType(kind: string): ApiType {
  const cached = (RESOURCE_KINDS as Record<string, (typeof RESOURCE_KINDS)[ResourceKind]>)[kind];
  if (cached) {
    return {
      group: cached.group,
      version: cached.version,
      plural: cached.plural,
      namespaced: !CLUSTER_SCOPED.has(kind),
    };
  }
  const other = OTHER_TYPES[kind];
  if (!other) throw new Error(`integration: no API path known for kind ${kind}`);
  return other;
}

/** `/api/v1/namespaces/ns/pods`, or every namespace's without `namespace`. */
export function collectionPath(kind: string, namespace?: string): string {
  const t = apiType(kind);
  const base = t.group === "" ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  return t.namespaced && namespace !== undefined
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${t.plural}`
    : `${base}/${t.plural}`;
}

export function objectPath(kind: string, namespace: string | undefined, name: string): string {
  const t = apiType(kind);
  return `${collectionPath(kind, t.namespaced ? (namespace ?? "default") : undefined)}/${encodeURIComponent(name)}`;
}

/** A uid for an owner reference to an owner the test never creates (nothing collects garbage). */
export function fakeUid(...parts: string[]): string {
  const h = createHash("sha1").update(parts.join("/")).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * What the API server requires and the tests' objects leave out: container images, the specs of
 * ReplicaSets and Jobs (the destination service only reads their metadata), owner reference
 * uids. Everything the objects say is kept as it is.
 */
export function completeForApi(obj: KubeObject): KubeObject {
  const metadata = { ...obj.metadata };
  if (metadata.ownerReferences) {
    metadata.ownerReferences = metadata.ownerReferences.map((ref) => ({
      ...ref,
      uid: ref.uid ?? fakeUid(obj.metadata.namespace ?? "", ref.kind, ref.name),
    }));
  }
  const out: KubeObject = { ...obj, metadata };
  const container = { name: "app", image: PAUSE_IMAGE };
  if (obj.kind === "Pod") {
    const spec = (obj.spec ?? {}) as { containers?: { image?: string }[] };
    out.spec = {
      ...spec,
      containers: (spec.containers ?? [container]).map((c) => ({ image: PAUSE_IMAGE, ...c })),
    };
  } else if (obj.kind === "ReplicaSet" && obj.spec === undefined) {
    const labels = { "integration.destination/replicaset": obj.metadata.name };
    out.spec = {
      replicas: 0,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [container] } },
    };
  } else if (obj.kind === "Job" && obj.spec === undefined) {
    out.spec = {
      suspend: true,
      template: { spec: { restartPolicy: "Never", containers: [container] } },
    };
  }
  return out;
}

function describeResponse(res: KubeResponse): string {
  const b = res.body as { message?: string } | string;
  return `${res.status} ${typeof b === "object" && b?.message ? b.message : res.text.slice(0, 300)}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes objects to the API server of a `KubeEnv` as admin. */
export class ApiWriter {
  readonly #env: KubeEnv;
  readonly #namespaces = new Set<string>();

  constructor(env: KubeEnv) {
    this.#env = env;
  }

  /**
   * Server-side applies each object, then its `status` (if it has one) through the status
   * subresource. A Pod whose spec changed in a way Kubernetes forbids (ports, containers) is
   * replaced, as its controller would: deleted, then created again. Namespaces are created
   * first when missing. Returns the objects as stored.
   */
  async apply(...objects: KubeObject[]): Promise<KubeObject[]> {
    const stored: KubeObject[] = [];
    for (const original of objects) {
      const obj = completeForApi(original);
      const { status, ...withoutStatus } = obj;
      const ns = apiType(obj.kind).namespaced ? (obj.metadata.namespace ?? "default") : undefined;
      if (ns !== undefined) await this.ensureNamespace(ns);
      const path = objectPath(obj.kind, ns, obj.metadata.name);
      let res = await this.#ssa(path, withoutStatus);
      if (
        res.status === 422 &&
        obj.kind === "Pod" &&
        /pod updates may not change fields/.test(res.text)
      ) {
        await this.delete("Pod", ns, obj.metadata.name);
        res = await this.#ssa(path, withoutStatus);
      }
      if (res.status !== 200 && res.status !== 201) {
        throw new Error(
          `integration: apply ${obj.kind} ${ns ?? ""}/${obj.metadata.name}: ${describeResponse(res)}`,
        );
      }
      let result = res.body as KubeObject;
      if (status !== undefined) {
        const patch = {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          metadata: { name: obj.metadata.name, ...(ns ? { namespace: ns } : {}) },
          status,
        };
        const statusRes = await this.#ssa(`${path}/status`, patch);
        if (statusRes.status !== 200) {
          throw new Error(
            `integration: apply status of ${obj.kind} ${ns ?? ""}/${obj.metadata.name}: ${describeResponse(statusRes)}`,
          );
        }
        result = statusRes.body as KubeObject;
      }
      stored.push(result);
    }
    return stored;
  }

  /** Server-side applies only the status of an object that exists. */
  async applyStatus(obj: KubeObject): Promise<KubeObject> {
    const ns = apiType(obj.kind).namespaced ? (obj.metadata.namespace ?? "default") : undefined;
    const patch = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      metadata: { name: obj.metadata.name, ...(ns ? { namespace: ns } : {}) },
      status: obj.status,
    };
    const res = await this.#ssa(`${objectPath(obj.kind, ns, obj.metadata.name)}/status`, patch);
    if (res.status !== 200) {
      throw new Error(
        `integration: apply status of ${obj.kind} ${ns ?? ""}/${obj.metadata.name}: ${describeResponse(res)}`,
      );
    }
    return res.body as KubeObject;
  }

  /** Creates an object (no apply): fails if it exists. Status is left to `applyStatus`. */
  async create(original: KubeObject): Promise<KubeObject> {
    const obj = completeForApi(original);
    const { status: _status, ...body } = obj;
    const ns = apiType(obj.kind).namespaced ? (obj.metadata.namespace ?? "default") : undefined;
    if (ns !== undefined) await this.ensureNamespace(ns);
    const res = await this.#env.request<KubeObject>(
      "POST",
      `${collectionPath(obj.kind, ns)}?fieldManager=${FIELD_MANAGER}`,
      JSON.stringify(body),
    );
    if (res.status !== 201) {
      throw new Error(
        `integration: create ${obj.kind} ${ns ?? ""}/${obj.metadata.name}: ${describeResponse(res)}`,
      );
    }
    return res.body;
  }

  /**
   * Deletes an object at once (grace period 0, background propagation) and resolves once the
   * API server no longer has it. A missing object is not an error.
   */
  async delete(kind: string, namespace: string | undefined, name: string): Promise<void> {
    const path = objectPath(kind, namespace, name);
    const res = await this.#env.request(
      "DELETE",
      `${path}?gracePeriodSeconds=0&propagationPolicy=Background`,
    );
    if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
      throw new Error(
        `integration: delete ${kind} ${namespace ?? ""}/${name}: ${describeResponse(res)}`,
      );
    }
    for (let i = 0; ; i++) {
      const got = await this.#env.request("GET", path);
      if (got.status === 404) return;
      if (i >= 100) throw new Error(`integration: ${kind} ${namespace ?? ""}/${name} is not gone`);
      await sleep(50);
    }
  }

  /** Every object of a kind in every namespace. */
  async list(kind: string): Promise<KubeObject[]> {
    const res = await this.#env.request<{ items: KubeObject[] }>("GET", collectionPath(kind));
    if (res.status !== 200) throw new Error(`integration: list ${kind}: ${describeResponse(res)}`);
    return res.body.items;
  }

  /** One object, or undefined. */
  async get(
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const res = await this.#env.request<KubeObject>("GET", objectPath(kind, namespace, name));
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`integration: get ${kind}: ${describeResponse(res)}`);
    return res.body;
  }

  async ensureNamespace(name: string): Promise<void> {
    if (this.#namespaces.has(name)) return;
    const res = await this.#ssa(objectPath("Namespace", undefined, name), {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    });
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`integration: namespace ${name}: ${describeResponse(res)}`);
    }
    this.#namespaces.add(name);
  }

  /**
   * Server-side apply with `?dryRun=All`: validated and admitted, never stored. Unknown or
   * duplicate fields fail it, as they fail `kubectl apply --dry-run=server`.
   */
  async dryRunApply(obj: KubeObject): Promise<KubeResponse<KubeObject>> {
    const ns = apiType(obj.kind).namespaced ? (obj.metadata.namespace ?? "default") : undefined;
    return this.#ssa(
      objectPath(obj.kind, ns, obj.metadata.name),
      obj,
      "&dryRun=All&fieldValidation=Strict",
    );
  }

  /** Create with `?dryRun=All`, strict about fields as `dryRunApply`. */
  async dryRunCreate(obj: KubeObject): Promise<KubeResponse<KubeObject>> {
    const ns = apiType(obj.kind).namespaced ? (obj.metadata.namespace ?? "default") : undefined;
    return this.#env.request<KubeObject>(
      "POST",
      `${collectionPath(obj.kind, ns)}?dryRun=All&fieldValidation=Strict&fieldManager=${FIELD_MANAGER}`,
      JSON.stringify(obj),
    );
  }

  #ssa(path: string, body: unknown, extra = ""): Promise<KubeResponse<KubeObject>> {
    return this.#env.request<KubeObject>(
      "PATCH",
      `${path}?fieldManager=${FIELD_MANAGER}&force=true${extra}`,
      JSON.stringify(body),
      { contentType: "application/apply-patch+yaml" },
    );
  }
}
