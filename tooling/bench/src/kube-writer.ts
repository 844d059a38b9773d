/**
 * Writes the bench's cluster to a real API server as admin: server-side apply of objects and of
 * their status (no kubelet or controller runs), deletes, over keep-alive connections so tens of
 * thousands of writes take seconds, not a TLS handshake each.
 */
import { createHash } from "node:crypto";
import https from "node:https";
import type { KubeObject } from "@destination/core";
import type { KubeEnv } from "@destination/k8s-env";

const FIELD_MANAGER = "destination-bench";
const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

const PLURALS: Record<string, { base: string; plural: string; namespaced: boolean }> = {
  Namespace: { base: "/api/v1", plural: "namespaces", namespaced: false },
  Node: { base: "/api/v1", plural: "nodes", namespaced: false },
  Service: { base: "/api/v1", plural: "services", namespaced: true },
  Pod: { base: "/api/v1", plural: "pods", namespaced: true },
  ReplicaSet: { base: "/apis/apps/v1", plural: "replicasets", namespaced: true },
  EndpointSlice: { base: "/apis/discovery.k8s.io/v1", plural: "endpointslices", namespaced: true },
  Server: { base: "/apis/policy.linkerd.io/v1beta3", plural: "servers", namespaced: true },
  ServiceProfile: {
    base: "/apis/linkerd.io/v1alpha2",
    plural: "serviceprofiles",
    namespaced: true,
  },
};

function objectPath(kind: string, namespace: string | undefined, name: string): string {
  const t = PLURALS[kind];
  if (!t) throw new Error(`bench: no API path for kind ${kind}`);
  const ns = t.namespaced ? `/namespaces/${namespace ?? "default"}` : "";
  return `${t.base}${ns}/${t.plural}/${name}`;
}

/** A stable uid for an owner that is never created (nothing collects garbage here). */
function fakeUid(...parts: string[]): string {
  const h = createHash("sha1").update(parts.join("/")).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** What the API server requires and the fixtures leave out: images, specs, owner uids. */
export function completeForApi(obj: KubeObject): KubeObject {
  const metadata = { ...obj.metadata };
  if (metadata.ownerReferences) {
    metadata.ownerReferences = metadata.ownerReferences.map((ref) => ({
      ...ref,
      uid: ref.uid ?? fakeUid(metadata.namespace ?? "", ref.kind, ref.name),
    }));
  }
  const out = { ...obj, metadata } as KubeObject & Record<string, unknown>;
  const source = obj as KubeObject & Record<string, unknown>;
  if (obj.kind === "Pod") {
    const spec = (source.spec ?? {}) as { containers?: Record<string, unknown>[] };
    out.spec = {
      ...spec,
      containers: (spec.containers ?? []).map((c) => ({ image: PAUSE_IMAGE, ...c })),
    };
  } else if (obj.kind === "Service") {
    // The API server allocates cluster IPs from its own range; Gets name the Service.
    const { clusterIP: _ip, clusterIPs: _ips, ...spec } = source.spec as Record<string, unknown>;
    out.spec = spec;
  } else if (obj.kind === "ReplicaSet" && source.spec === undefined) {
    const labels = { "bench.destination/replicaset": obj.metadata.name };
    out.spec = {
      replicas: 0,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "app", image: PAUSE_IMAGE }] },
      },
    };
  }
  return out;
}

export class KubeWriter {
  readonly #url: URL;
  readonly #agent: https.Agent;
  /** Writes sent, for reports. */
  writes = 0;

  constructor(env: KubeEnv) {
    this.#url = new URL(env.server);
    this.#agent = new https.Agent({
      keepAlive: true,
      maxSockets: 64,
      ca: env.caPem,
      cert: env.adminCertPem,
      key: env.adminKeyPem,
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  /** Server-side applies the object, then its status (if any) through `/status`. */
  async apply(original: KubeObject): Promise<void> {
    const obj = completeForApi(original) as KubeObject & { status?: unknown };
    const { status, ...rest } = obj;
    const path = objectPath(obj.kind ?? "", obj.metadata.namespace, obj.metadata.name);
    await this.#ssa(path, rest);
    if (status !== undefined) {
      await this.#ssa(`${path}/status`, {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace },
        status,
      });
    }
  }

  /** Deletes at once (no kubelet to confirm a graceful delete); a missing object is fine. */
  async delete(kind: string, namespace: string | undefined, name: string): Promise<void> {
    const res = await this.#request(
      "DELETE",
      `${objectPath(kind, namespace, name)}?gracePeriodSeconds=0`,
    );
    if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
      throw new Error(`bench: delete ${kind} ${namespace}/${name}: ${res.status} ${res.text}`);
    }
  }

  /**
   * A JSON merge patch of the object (or of its status): the one write a controller or the
   * kubelet makes to change a few fields, which a server-side apply of a partial object
   * cannot be (it would drop the manager's other fields).
   */
  async mergePatch(
    kind: string,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: { status?: boolean } = {},
  ): Promise<void> {
    const path = `${objectPath(kind, namespace, name)}${options.status ? "/status" : ""}`;
    const res = await this.#request(
      "PATCH",
      `${path}?fieldManager=${FIELD_MANAGER}`,
      JSON.stringify(patch),
      "application/merge-patch+json",
    );
    if (res.status !== 200) {
      throw new Error(`bench: patch ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  }

  async #ssa(path: string, body: unknown): Promise<void> {
    const res = await this.#request(
      "PATCH",
      `${path}?fieldManager=${FIELD_MANAGER}&force=true`,
      JSON.stringify(body),
      "application/apply-patch+yaml",
    );
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`bench: apply ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  }

  #request(
    method: string,
    path: string,
    body?: string,
    contentType?: string,
  ): Promise<{ status: number; text: string }> {
    this.writes++;
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, this.#url),
        {
          method,
          agent: this.#agent,
          headers: {
            accept: "application/json",
            ...(body === undefined
              ? {}
              : {
                  "content-type": contentType ?? "application/json",
                  "content-length": String(Buffer.byteLength(body)),
                }),
          },
          timeout: 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`bench: ${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(body);
    });
  }
}

/** Runs `fn` over `items`, at most `n` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
}
