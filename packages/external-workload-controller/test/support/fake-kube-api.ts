// An in-memory API server for the controller's unit tests: Leases and EndpointSlices with
// resourceVersions, conflicts, generateName and generations, the slices echoed into a
// MemoryCluster's cache a moment later, as a watch would deliver them.
import type { EndpointSlice, KubeObject } from "@destination/core";
import {
  type KubeApi,
  KubeApiError,
  type KubeRequest,
  type MemoryCluster,
} from "@destination/k8s-discovery";

export interface RecordedWrite {
  readonly client: string;
  readonly method: string;
  readonly path: string;
}

export class FakeKubeApi {
  readonly objects = new Map<string, KubeObject>();
  readonly writes: RecordedWrite[] = [];
  readonly #cluster: MemoryCluster;
  #version = 0;
  #names = 0;

  constructor(cluster: MemoryCluster) {
    this.#cluster = cluster;
  }

  /** A client of this server; its writes are recorded under `name`. */
  client(name: string): KubeApi {
    return { json: <T>(request: KubeRequest) => this.#handle(name, request) as Promise<T> };
  }

  slices(): EndpointSlice[] {
    return [...this.objects.entries()]
      .filter(([path]) => path.includes("/endpointslices/"))
      .map(([, obj]) => obj as EndpointSlice);
  }

  async #handle(client: string, request: KubeRequest): Promise<unknown> {
    await new Promise((r) => setImmediate(r));
    const method = request.method ?? "GET";
    if (method !== "GET") this.writes.push({ client, method, path: request.path });
    const fail = (code: number, reason: string): never => {
      throw new KubeApiError(code, { code, reason, message: reason }, request.path);
    };
    if (method === "GET") {
      const found = this.objects.get(request.path);
      return found === undefined ? fail(404, "NotFound") : structuredClone(found);
    }
    if (method === "POST") {
      const body = structuredClone(request.body) as KubeObject & {
        metadata: { generateName?: string };
      };
      const { generateName, ...metadata } = body.metadata;
      const name =
        metadata.name || `${generateName ?? ""}${(++this.#names).toString(36).padStart(5, "0")}`;
      const path = `${request.path}/${name}`;
      if (this.objects.has(path)) fail(409, "AlreadyExists");
      const stored = {
        ...body,
        metadata: {
          ...metadata,
          name,
          uid: `uid-${path}`,
          generation: 1,
          resourceVersion: String(++this.#version),
        },
      };
      this.#store(path, stored);
      return structuredClone(stored);
    }
    if (method === "PUT") {
      const body = structuredClone(request.body) as KubeObject;
      const current = this.objects.get(request.path) ?? fail(404, "NotFound");
      const rv = body.metadata.resourceVersion;
      if (rv !== undefined && rv !== "" && rv !== current.metadata.resourceVersion)
        fail(409, "Conflict");
      const stored = {
        ...body,
        metadata: {
          ...body.metadata,
          uid: current.metadata.uid ?? "",
          generation: (current.metadata.generation ?? 1) + 1,
          resourceVersion: String(++this.#version),
        },
      };
      this.#store(request.path, stored);
      return structuredClone(stored);
    }
    const current = this.objects.get(request.path) ?? fail(404, "NotFound");
    this.objects.delete(request.path);
    if (current.kind === "EndpointSlice") {
      setTimeout(
        () =>
          this.#cluster.delete("EndpointSlice", current.metadata.namespace, current.metadata.name),
        1,
      );
    }
    return { kind: "Status", status: "Success" };
  }

  #store(path: string, obj: KubeObject): void {
    this.objects.set(path, obj);
    if (obj.kind === "EndpointSlice")
      setTimeout(() => this.#cluster.apply(structuredClone(obj)), 1);
  }
}
