import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { KubeObject } from "@destination/core";
import {
  apiVersionOf,
  objectKey,
  RESOURCE_KINDS,
  type ResourceKind,
} from "@destination/k8s-discovery";
import { KubeConfig } from "@kubernetes/client-node";

// A small stand-in for kube-apiserver, for tests of the cluster backend: discovery,
// SelfSubjectAccessReviews, paginated lists, watches with history, bookmarks, 410 Gone,
// metadata-only content negotiation, and ways to break things. Not a conformance fake: it does
// what the backend relies on, the way the real server does it.

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly accept: string;
  /** The `Authorization` header, empty without one. */
  readonly authorization: string;
}

export interface FakeApiServerOptions {
  /** Kinds the server has; all cached kinds by default. */
  readonly served?: Iterable<ResourceKind>;
  /** SelfSubjectAccessReviews denied, by resource as Go prints it: `pods`, `servers.policy.linkerd.io`. */
  readonly denied?: Iterable<string>;
  /** Answer metadata-only requests with 406 Not Acceptable. */
  readonly refuseMetadata?: boolean;
  /** How a watch from an expired version is refused: an HTTP 410, or an ERROR event (default). */
  readonly expiredAs?: "status" | "event";
  /**
   * Answer lists at `resourceVersion=0` as kube-apiserver's watch cache does: everything in one
   * response, `limit` ignored. Without it they page like any other list (no watch cache).
   */
  readonly watchCache?: boolean;
  /** Serve HTTPS with this certificate (PEM), for in-cluster configs; plain HTTP without. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Called with each request before it is answered. */
  readonly onRequest?: (request: RecordedRequest) => void;
}

interface OpenWatch {
  readonly kind: ResourceKind;
  readonly namespace: string | undefined;
  readonly metadata: boolean;
  readonly bookmarks: boolean;
  readonly response: ServerResponse;
}

interface HistoryEntry {
  readonly version: number;
  readonly kind: ResourceKind;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
}

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  readonly #served: Set<ResourceKind>;
  readonly #denied: Set<string>;
  readonly #options: FakeApiServerOptions;
  readonly #objects = new Map<ResourceKind, Map<string, KubeObject>>();
  readonly #history: HistoryEntry[] = [];
  readonly #watches = new Set<OpenWatch>();
  readonly #server: Server;
  #version = 1000;
  #compactedVersion = 0;
  #held: (() => void)[] | undefined;
  #failures = 0;
  #failureStatus = 500;
  #withheld: { kind: ResourceKind; name: string; count: number } | undefined;

  constructor(options: FakeApiServerOptions = {}) {
    this.#options = options;
    this.#served = new Set(options.served ?? (Object.keys(RESOURCE_KINDS) as ResourceKind[]));
    this.#denied = new Set(options.denied ?? []);
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res);
    this.#server = options.tls ? createTlsServer(options.tls, handle) : createServer(handle);
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
  }

  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `${this.#options.tls ? "https" : "http"}://127.0.0.1:${port}`;
  }

  /** A kubeconfig document pointing at this server, with a second, unused context. */
  kubeconfigYaml(): string {
    return [
      "apiVersion: v1",
      "kind: Config",
      "current-context: elsewhere",
      "clusters:",
      `- name: fake\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
      "- name: other\n  cluster:\n    server: http://127.0.0.1:1\n    insecure-skip-tls-verify: true",
      "users:",
      "- name: tester\n  user:\n    token: test-token",
      "contexts:",
      "- name: fake\n  context:\n    cluster: fake\n    user: tester",
      "- name: elsewhere\n  context:\n    cluster: other\n    user: tester",
      "",
    ].join("\n");
  }

  kubeConfig(): KubeConfig {
    // As k8s-discovery's loadKubeConfig({ kubeconfigYaml, context: "fake" }) loads it.
    const config = new KubeConfig();
    config.loadFromString(this.kubeconfigYaml());
    config.setCurrentContext("fake");
    return config;
  }

  async close(): Promise<void> {
    for (const release of this.#held ?? []) release();
    this.#held = undefined;
    for (const watch of this.#watches) watch.response.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Creates or updates an object, as `kubectl apply` would; watchers see ADDED or MODIFIED. */
  apply(obj: KubeObject): KubeObject {
    const kind = obj.kind as ResourceKind;
    const store = this.#store(kind);
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const current = store.get(key);
    const stored: KubeObject = {
      ...obj,
      apiVersion: apiVersionOf(RESOURCE_KINDS[kind]),
      metadata: {
        ...obj.metadata,
        uid: current?.metadata.uid ?? obj.metadata.uid ?? randomUUID(),
        resourceVersion: String(++this.#version),
        creationTimestamp: current?.metadata.creationTimestamp ?? new Date().toISOString(),
      },
    };
    store.set(key, stored);
    this.#publish({
      version: this.#version,
      kind,
      type: current ? "MODIFIED" : "ADDED",
      object: stored,
    });
    return stored;
  }

  delete(kind: ResourceKind, namespace: string | undefined, name: string): void {
    const store = this.#store(kind);
    const key = objectKey(namespace, name);
    const current = store.get(key);
    if (!current) return;
    store.delete(key);
    const object = {
      ...current,
      metadata: { ...current.metadata, resourceVersion: String(++this.#version) },
    };
    this.#publish({ version: this.#version, kind, type: "DELETED", object });
  }

  get(kind: ResourceKind, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#store(kind).get(objectKey(namespace, name));
  }

  /** Sends a BOOKMARK at the current version to every watch that asked for bookmarks. */
  bookmark(): void {
    for (const watch of this.#watches) {
      if (!watch.bookmarks) continue;
      const info = RESOURCE_KINDS[watch.kind];
      send(watch.response, {
        type: "BOOKMARK",
        object: {
          apiVersion: apiVersionOf(info),
          kind: info.kind,
          metadata: { resourceVersion: String(this.#version) },
        },
      });
    }
  }

  /** Writes a raw line to every open watch (garbage, to test the client's parser). */
  sendRaw(line: string): void {
    for (const watch of this.#watches) watch.response.write(`${line}\n`);
  }

  /** Ends every open watch normally, as the server's timeout would. */
  endWatches(): void {
    for (const watch of this.#watches) watch.response.end();
    this.#watches.clear();
  }

  /** Forgets the history: watching from any version seen so far answers 410 Gone. */
  compact(): void {
    this.#compactedVersion = this.#version;
    this.#history.length = 0;
  }

  /** Fails the next `count` list and watch requests with `status`. */
  failNext(count: number, status = 500): void {
    this.#failures = count;
    this.#failureStatus = status;
  }

  /**
   * The next change to the object `kind` `name` is stored and kept in the history but not sent
   * to the watches open now, as if the watch stream had dropped that one event: a client that
   * is not told to list again keeps the old object.
   */
  withholdNextEvent(kind: ResourceKind, name: string): void {
    this.#withheld = { kind, name, count: 0 };
  }

  /** How many events `withholdNextEvent` has withheld (0 or 1). */
  get withheldEvents(): number {
    return this.#withheld?.count ?? 0;
  }

  /** Open watches right now. */
  get openWatches(): number {
    return this.#watches.size;
  }

  /**
   * Cuts every watch and holds new list and watch requests while `change` runs, then forgets the
   * history, so clients come back to a 410 and must relist to see what changed.
   */
  async disconnected(change: () => unknown): Promise<void> {
    this.#held = [];
    for (const watch of this.#watches) watch.response.destroy();
    this.#watches.clear();
    await change();
    this.compact();
    const held = this.#held;
    this.#held = undefined;
    for (const release of held) release();
  }

  #store(kind: ResourceKind): Map<string, KubeObject> {
    let store = this.#objects.get(kind);
    if (!store) {
      store = new Map();
      this.#objects.set(kind, store);
    }
    return store;
  }

  #publish(entry: HistoryEntry): void {
    this.#history.push(entry);
    const withheld = this.#withheld;
    if (
      withheld !== undefined &&
      withheld.count === 0 &&
      withheld.kind === entry.kind &&
      withheld.name === entry.object.metadata.name
    ) {
      withheld.count = 1;
      return;
    }
    for (const watch of this.#watches) {
      if (watch.kind !== entry.kind) continue;
      if (watch.namespace !== undefined && watch.namespace !== entry.object.metadata.namespace) {
        continue;
      }
      send(watch.response, {
        type: entry.type,
        object: watch.metadata ? asMetadata(entry.object) : entry.object,
      });
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const request = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      accept: String(req.headers.accept ?? ""),
      authorization: req.headers.authorization ?? "",
    };
    this.requests.push(request);
    this.#options.onRequest?.(request);
    if (request.method === "POST") {
      if (url.pathname === "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") {
        this.#review(await readBody(req), res);
        return;
      }
      status(res, 405, "MethodNotAllowed", "not supported by the fake");
      return;
    }
    const discovery = this.#discovery(url.pathname);
    if (discovery !== undefined) {
      if (discovery.length === 0) {
        status(res, 404, "NotFound", "the server could not find the requested resource");
        return;
      }
      json(res, 200, { kind: "APIResourceList", resources: discovery });
      return;
    }
    const route = this.#route(url.pathname);
    if (!route) {
      status(res, 404, "NotFound", `no route ${url.pathname}`);
      return;
    }
    if (this.#held && route.name === undefined) {
      this.#held.push(() => void this.#serve(route, request, res));
      return;
    }
    this.#serve(route, request, res);
  }

  #serve(
    route: { kind: ResourceKind; namespace: string | undefined; name: string | undefined },
    request: RecordedRequest,
    res: ServerResponse,
  ): void {
    const wantsMetadata = request.accept.includes("as=PartialObjectMetadata");
    if (wantsMetadata && this.#options.refuseMetadata) {
      const fallback = request.accept.split(",").some((t) => t.trim() === "application/json");
      if (!fallback) {
        status(res, 406, "NotAcceptable", "only application/json");
        return;
      }
    }
    const metadata = wantsMetadata && !this.#options.refuseMetadata;
    if (route.name !== undefined) {
      const found = this.#store(route.kind).get(objectKey(route.namespace, route.name));
      if (!found) {
        status(res, 404, "NotFound", `${route.name} not found`);
        return;
      }
      json(res, 200, metadata ? asMetadata(found) : found);
      return;
    }
    if (this.#failures > 0) {
      this.#failures--;
      status(res, this.#failureStatus, "InternalError", "injected failure");
      return;
    }
    if (request.query.get("watch") === "true" || request.query.get("watch") === "1") {
      this.#watch(route.kind, route.namespace, metadata, request.query, res);
      return;
    }
    this.#list(route.kind, route.namespace, metadata, request.query, res);
    return;
  }

  #list(
    kind: ResourceKind,
    namespace: string | undefined,
    metadata: boolean,
    query: URLSearchParams,
    res: ServerResponse,
  ): void {
    const info = RESOURCE_KINDS[kind];
    const all = [...this.#store(kind).entries()]
      .filter(([, o]) => namespace === undefined || o.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o);
    const token = query.get("continue");
    if (token && query.has("resourceVersion")) {
      status(
        res,
        400,
        "BadRequest",
        "specifying resource version is not allowed when using continue",
      );
      return;
    }
    const start = token
      ? (JSON.parse(Buffer.from(token, "base64").toString()) as { offset: number; version: number })
      : { offset: 0, version: this.#version };
    if (token && start.version < this.#compactedVersion) {
      status(res, 410, "Expired", "The provided continue parameter is too old");
      return;
    }
    const fromCache = this.#options.watchCache === true && query.get("resourceVersion") === "0";
    const limit = (!fromCache && Number(query.get("limit") ?? "0")) || all.length;
    const page = all.slice(start.offset, start.offset + limit);
    const next = start.offset + limit < all.length;
    // Typed lists leave kind and apiVersion off their items.
    const items = page.map((o) => {
      if (metadata) return asMetadata(o);
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest;
    });
    json(res, 200, {
      apiVersion: metadata ? "meta.k8s.io/v1" : apiVersionOf(info),
      kind: metadata ? "PartialObjectMetadataList" : `${info.kind}List`,
      metadata: {
        resourceVersion: String(start.version),
        ...(next
          ? {
              continue: Buffer.from(
                JSON.stringify({ offset: start.offset + limit, version: start.version }),
              ).toString("base64"),
            }
          : {}),
      },
      // As kube-apiserver does: an empty metadata-only list carries `items: null`.
      items: metadata && items.length === 0 ? null : items,
    });
  }

  #watch(
    kind: ResourceKind,
    namespace: string | undefined,
    metadata: boolean,
    query: URLSearchParams,
    res: ServerResponse,
  ): void {
    const from = Number(query.get("resourceVersion") ?? "");
    if (Number.isFinite(from) && from > 0 && from < this.#compactedVersion) {
      const gone = {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        code: 410,
        reason: "Expired",
        message: `too old resource version: ${from} (${this.#compactedVersion})`,
      };
      if (this.#options.expiredAs === "status") {
        json(res, 410, gone);
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      send(res, { type: "ERROR", object: gone });
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    const watch: OpenWatch = {
      kind,
      namespace,
      metadata,
      bookmarks: query.get("allowWatchBookmarks") === "true",
      response: res,
    };
    for (const entry of this.#history) {
      if (entry.kind !== kind || entry.version <= from) continue;
      if (namespace !== undefined && entry.object.metadata.namespace !== namespace) continue;
      send(res, { type: entry.type, object: metadata ? asMetadata(entry.object) : entry.object });
    }
    this.#watches.add(watch);
    const timeout = Number(query.get("timeoutSeconds") ?? "0");
    const timer =
      timeout > 0
        ? setTimeout(() => {
            this.#watches.delete(watch);
            res.end();
          }, timeout * 1000)
        : undefined;
    res.on("close", () => {
      clearTimeout(timer);
      this.#watches.delete(watch);
    });
  }

  #review(body: string, res: ServerResponse): void {
    const review = JSON.parse(body) as {
      spec?: { resourceAttributes?: { group?: string; resource?: string } };
    };
    const { group = "", resource = "" } = review.spec?.resourceAttributes ?? {};
    const name = group === "" ? resource : `${resource}.${group}`;
    const allowed = !this.#denied.has(name);
    json(res, 201, {
      ...review,
      status: allowed ? { allowed } : { allowed, reason: "RBAC: the fake says no" },
    });
  }

  /** The APIResourceList of a discovery path, empty when not served; undefined for other paths. */
  #discovery(path: string): { name: string; kind: string; namespaced: boolean }[] | undefined {
    const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!match) return undefined;
    const group = match[2] ?? "";
    const version = match[1] ?? match[3] ?? "";
    return [...this.#served]
      .map((kind) => RESOURCE_KINDS[kind])
      .filter((info) => info.group === group && info.version === version)
      .map((info) => ({ name: info.plural, kind: info.kind, namespaced: info.kind !== "Node" }));
  }

  #route(
    path: string,
  ): { kind: ResourceKind; namespace: string | undefined; name: string | undefined } | undefined {
    const match =
      /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?$/.exec(
        path,
      );
    if (!match) return undefined;
    const group = match[2] ?? "";
    const version = match[1] ?? match[3] ?? "";
    const kind = [...this.#served].find((k) => {
      const info = RESOURCE_KINDS[k];
      return info.group === group && info.version === version && info.plural === match[5];
    });
    if (!kind) return undefined;
    const decode = (s: string | undefined) => (s === undefined ? undefined : decodeURIComponent(s));
    return { kind, namespace: decode(match[4]), name: decode(match[6]) };
  }
}

function asMetadata(obj: KubeObject): KubeObject {
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: obj.metadata };
}

function send(res: ServerResponse, event: unknown): void {
  res.write(`${JSON.stringify(event)}\n`);
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  json(res, code, { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
