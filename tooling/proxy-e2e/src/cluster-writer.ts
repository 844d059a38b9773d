// Where a test's Kubernetes objects go: a manifests folder our server watches, or a real
// kube-apiserver. Both take the same objects, so each scenario runs unchanged on either.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import type { KubeObject } from "./cluster-objects.js";

export interface ClusterWriter {
  readonly kind: "manifests" | "kube-apiserver";
  /** Creates or replaces each object (with its status, as its controller would). */
  apply(...objects: KubeObject[]): Promise<void>;
  delete(kind: string, name: string): Promise<void>;
  /**
   * `name` goes and `next` comes in one change: one file rewritten in place for the folder
   * (one scan sees both, and applies the add first), the same order for the API server.
   */
  replace(kind: string, name: string, next: KubeObject): Promise<void>;
  close(): Promise<void>;
}

const fileName = (kind: string, name: string) => `${kind.toLowerCase()}-${name}.yaml`;

/** One YAML (JSON) file per object; written whole and renamed, so no half file is ever read. */
export class ManifestsWriter implements ClusterWriter {
  readonly kind = "manifests";
  readonly dir = mkdtempSync(join(tmpdir(), "proxy-e2e-manifests-"));

  async apply(...objects: KubeObject[]): Promise<void> {
    for (const obj of objects) this.#write(fileName(obj.kind, obj.metadata.name), obj);
  }

  async delete(kind: string, name: string): Promise<void> {
    rmSync(join(this.dir, fileName(kind, name)));
  }

  async replace(kind: string, name: string, next: KubeObject): Promise<void> {
    this.#write(fileName(kind, name), next);
  }

  #write(file: string, obj: KubeObject): void {
    const tmp = join(this.dir, `.${file}.partial`);
    writeFileSync(tmp, JSON.stringify(obj, null, 2));
    renameSync(tmp, join(this.dir, file));
  }

  async close(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const RESOURCES: Record<string, { prefix: string; plural: string; namespaced: boolean }> = {
  Service: { prefix: "/api/v1", plural: "services", namespaced: true },
  Pod: { prefix: "/api/v1", plural: "pods", namespaced: true },
  Node: { prefix: "/api/v1", plural: "nodes", namespaced: false },
  EndpointSlice: {
    prefix: "/apis/discovery.k8s.io/v1",
    plural: "endpointslices",
    namespaced: true,
  },
  ServiceProfile: {
    prefix: "/apis/linkerd.io/v1alpha2",
    plural: "serviceprofiles",
    namespaced: true,
  },
  Server: { prefix: "/apis/policy.linkerd.io/v1beta3", plural: "servers", namespaced: true },
  ServerAuthorization: {
    prefix: "/apis/policy.linkerd.io/v1beta1",
    plural: "serverauthorizations",
    namespaced: true,
  },
  ExternalWorkload: {
    prefix: "/apis/workload.linkerd.io/v1beta1",
    plural: "externalworkloads",
    namespaced: true,
  },
};

function objectPath(kind: string, name: string, namespace = "default"): string {
  const r = RESOURCES[kind];
  if (r === undefined) throw new Error(`proxy-e2e: no API path for kind ${kind}`);
  const ns = r.namespaced ? `/namespaces/${namespace}` : "";
  return `${r.prefix}${ns}/${r.plural}/${encodeURIComponent(name)}`;
}

/** Server-side apply to a real API server; a Pod's status goes through its subresource. */
export class ApiServerWriter implements ClusterWriter {
  readonly kind = "kube-apiserver";
  constructor(private readonly env: KubeEnv) {}

  private async ssa(path: string, body: object): Promise<void> {
    const res = await this.env.request(
      "PATCH",
      `${path}?fieldManager=proxy-e2e&force=true`,
      JSON.stringify(body),
      { contentType: "application/apply-patch+yaml" },
    );
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`proxy-e2e: apply ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  async apply(...objects: KubeObject[]): Promise<void> {
    for (const obj of objects) {
      const { status, ...rest } = obj;
      const { uid: _uid, ...metadata } = obj.metadata;
      const path = objectPath(obj.kind, obj.metadata.name, obj.metadata.namespace);
      await this.ssa(path, { ...rest, metadata });
      if (status !== undefined) {
        await this.ssa(`${path}/status`, {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace },
          status,
        });
      }
    }
  }

  async delete(kind: string, name: string): Promise<void> {
    const res = await this.env.request("DELETE", `${objectPath(kind, name)}?gracePeriodSeconds=0`);
    if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
      throw new Error(`proxy-e2e: delete ${kind} ${name}: ${res.status}`);
    }
  }

  async replace(kind: string, name: string, next: KubeObject): Promise<void> {
    await this.apply(next);
    await this.delete(kind, name);
  }

  async close(): Promise<void> {
    // The API server is the suite's; each test deletes what it made (Mesh.close).
  }
}
