import { existsSync, readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";

/** Where the API server and credentials come from; the first option given wins. */
export interface KubeConfigSource {
  /** The pod's service account (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inCluster?: boolean;
  /** A kubeconfig document, e.g. from a multicluster link Secret. */
  readonly kubeconfigYaml?: string;
  /** A kubeconfig file. */
  readonly kubeconfigPath?: string;
  /**
   * The context to use instead of the file's `current-context`. Without any of the options
   * above, the standard rules apply: `$KUBECONFIG`, then `~/.kube/config`, then in-cluster.
   */
  readonly context?: string;
}

/** The API server of the chosen context, and how to authenticate to it. */
export interface KubeConfig {
  /** The API server's URL. */
  readonly server: string;
  /** The name of the chosen context. */
  readonly context: string;
  /**
   * Sets TLS options and credentials on a request. Called per request, so rotated tokens
   * (token files, exec plugins) are picked up.
   */
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Loads a kubeconfig the way `kubectl` would; throws when the named context does not exist.
 *
 * Reading YAML, TLS files and tokens is done here: `@kubernetes/client-node` takes about half a
 * second to import, which every start of the server paid. It is still used, imported on first
 * request, for what a kubeconfig can ask beyond that (exec plugins, auth providers, proxies), so
 * those keep working exactly as before.
 */
export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  let files: KubeconfigFile[];
  if (source.inCluster) {
    if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) {
      throw new Error("not running in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set");
    }
    return inClusterConfig();
  } else if (source.kubeconfigYaml !== undefined) {
    files = [{ doc: parseKubeconfig(source.kubeconfigYaml), dir: undefined }];
  } else if (source.kubeconfigPath) {
    files = [readKubeconfig(source.kubeconfigPath)];
  } else {
    const fromEnv = (process.env.KUBECONFIG ?? "").split(delimiter).filter((f) => f !== "");
    if (fromEnv.length > 0) files = fromEnv.map(readKubeconfig);
    else {
      const home = join(process.env.HOME || homedir(), ".kube", "config");
      if (existsSync(home)) files = [readKubeconfig(home)];
      else if (existsSync(join(SERVICE_ACCOUNT_DIR, "token"))) return inClusterConfig();
      else {
        // What client-node did with nothing to go on: an unauthenticated local API server.
        return new FileKubeConfig(
          "loaded-context",
          { server: "http://localhost:8080", dir: undefined },
          { dir: undefined },
          undefined,
        );
      }
    }
  }
  return fromFiles(files, source);
}

interface KubeconfigFile {
  readonly doc: KubeconfigDoc;
  /** Relative paths in the file are relative to its folder. */
  readonly dir: string | undefined;
}

interface Named<T> {
  readonly name?: unknown;
  readonly cluster?: T;
  readonly user?: T;
  readonly context?: T;
}

interface KubeconfigDoc {
  readonly "current-context"?: unknown;
  readonly clusters?: readonly Named<Record<string, unknown>>[];
  readonly users?: readonly Named<Record<string, unknown>>[];
  readonly contexts?: readonly Named<Record<string, unknown>>[];
}

interface ClusterEntry {
  readonly server?: unknown;
  readonly "certificate-authority"?: unknown;
  readonly "certificate-authority-data"?: unknown;
  readonly "insecure-skip-tls-verify"?: unknown;
  readonly "tls-server-name"?: unknown;
  readonly "proxy-url"?: unknown;
  readonly dir: string | undefined;
}

interface UserEntry {
  readonly token?: unknown;
  readonly "token-file"?: unknown;
  readonly "client-certificate"?: unknown;
  readonly "client-certificate-data"?: unknown;
  readonly "client-key"?: unknown;
  readonly "client-key-data"?: unknown;
  readonly username?: unknown;
  readonly password?: unknown;
  readonly as?: unknown;
  readonly exec?: unknown;
  readonly "auth-provider"?: unknown;
  readonly dir: string | undefined;
}

function parseKubeconfig(text: string): KubeconfigDoc {
  const doc: unknown = parse(text);
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) throw new Error("kubeconfig is not a map");
  return doc as KubeconfigDoc;
}

function readKubeconfig(path: string): KubeconfigFile {
  return { doc: parseKubeconfig(readFileSync(path, "utf8")), dir: dirname(path) };
}

/** Merges the files as kubectl does: the first file to name a cluster, user or context wins. */
function fromFiles(files: readonly KubeconfigFile[], source: KubeConfigSource): KubeConfig {
  const clusters = new Map<string, ClusterEntry>();
  const users = new Map<string, UserEntry>();
  const contexts = new Map<string, Record<string, unknown>>();
  let current: string | undefined;
  for (const { doc, dir } of files) {
    if (current === undefined && typeof doc["current-context"] === "string") {
      current = doc["current-context"] || undefined;
    }
    for (const c of list(doc.clusters)) {
      if (typeof c.name === "string" && !clusters.has(c.name) && c.cluster) {
        clusters.set(c.name, { ...c.cluster, dir });
      }
    }
    for (const u of list(doc.users)) {
      if (typeof u.name === "string" && !users.has(u.name)) users.set(u.name, { ...u.user, dir });
    }
    for (const c of list(doc.contexts)) {
      if (typeof c.name === "string" && !contexts.has(c.name))
        contexts.set(c.name, c.context ?? {});
    }
  }
  if (source.context) {
    if (!contexts.has(source.context)) {
      throw new Error(`kubeconfig has no context named ${JSON.stringify(source.context)}`);
    }
    current = source.context;
  }
  const context = current === undefined ? undefined : contexts.get(current);
  const cluster = typeof context?.cluster === "string" ? clusters.get(context.cluster) : undefined;
  if (current === undefined || !cluster || typeof cluster.server !== "string" || !cluster.server) {
    throw new Error("kubeconfig names no API server for the current context");
  }
  const user = typeof context?.user === "string" ? users.get(context.user) : undefined;
  const needsClient =
    user?.exec != null || user?.["auth-provider"] != null || cluster["proxy-url"] != null;
  return new FileKubeConfig(
    current,
    cluster,
    user ?? { dir: undefined },
    needsClient ? () => clientNodeOptions(files, current) : undefined,
  );
}

function list<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

function path(dir: string | undefined, file: string): string {
  return dir === undefined || isAbsolute(file) ? file : join(dir, file);
}

/** A file's contents, or base64 data; undefined when neither is given. */
function fileOrData(dir: string | undefined, file: unknown, data: unknown): Buffer | undefined {
  if (typeof file === "string" && file !== "") return readFileSync(path(dir, file));
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64");
  return undefined;
}

type Delegate = () => Promise<(options: RequestOptions) => Promise<void>>;

class FileKubeConfig implements KubeConfig {
  readonly server: string;
  readonly context: string;
  readonly #cluster: ClusterEntry;
  readonly #user: UserEntry;
  readonly #delegate: Delegate | undefined;
  #delegated: Promise<(options: RequestOptions) => Promise<void>> | undefined;

  constructor(context: string, cluster: ClusterEntry, user: UserEntry, delegate?: Delegate) {
    this.context = context;
    this.server = String(cluster.server).replace(/\/$/, "");
    this.#cluster = cluster;
    this.#user = user;
    this.#delegate = delegate;
  }

  async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
    if (this.#delegate) {
      this.#delegated ??= this.#delegate();
      return (await this.#delegated)(options);
    }
    const user = this.#user;
    // Files are read per request, as client-node did, so rotated certificates are picked up.
    const cluster = this.#cluster;
    const ca = fileOrData(
      cluster.dir,
      cluster["certificate-authority"],
      cluster["certificate-authority-data"],
    );
    if (ca) options.ca = ca;
    const cert = fileOrData(user.dir, user["client-certificate"], user["client-certificate-data"]);
    if (cert) options.cert = cert;
    const key = fileOrData(user.dir, user["client-key"], user["client-key-data"]);
    if (key) options.key = key;
    if (cluster["insecure-skip-tls-verify"] === true) options.rejectUnauthorized = false;
    if (typeof cluster["tls-server-name"] === "string") {
      options.servername = cluster["tls-server-name"];
    }
    options.headers ??= {};
    const headers = options.headers as Record<string, string>;
    if (typeof user.as === "string" && user.as !== "") headers["Impersonate-User"] = user.as;
    const token =
      typeof user.token === "string" && user.token !== ""
        ? user.token
        : typeof user["token-file"] === "string" && user["token-file"] !== ""
          ? readFileSync(path(user.dir, user["token-file"]), "utf8").trim()
          : undefined;
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (typeof user.username === "string" && user.username !== "") {
      options.auth = `${user.username}:${typeof user.password === "string" ? user.password : ""}`;
    }
    if (this.server.startsWith("http:") && this.#cluster["insecure-skip-tls-verify"] !== true) {
      throw new Error("HTTP protocol is not allowed when skipTLSVerify is not set or false");
    }
  }
}

/** The pod's service account; its token file is read per request, as it is rotated. */
function inClusterConfig(): KubeConfig {
  const host = process.env.KUBERNETES_SERVICE_HOST ?? "";
  const port = process.env.KUBERNETES_SERVICE_PORT ?? "";
  const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
  return new FileKubeConfig(
    "inClusterContext",
    {
      server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
      "certificate-authority": join(SERVICE_ACCOUNT_DIR, "ca.crt"),
      dir: undefined,
    },
    { "token-file": join(SERVICE_ACCOUNT_DIR, "token"), dir: undefined },
  );
}

/**
 * What a kubeconfig asks beyond files and tokens is left to client-node, loaded only then.
 * `applyToHTTPSOptions` also sets a fresh agent per request, for proxies.
 */
async function clientNodeOptions(
  files: readonly KubeconfigFile[],
  context: string,
): Promise<(options: RequestOptions) => Promise<void>> {
  const { KubeConfig: ClientConfig } = await import("@kubernetes/client-node");
  const config = new ClientConfig();
  const [first, ...rest] = files;
  const load = (target: InstanceType<typeof ClientConfig>, file: KubeconfigFile | undefined) => {
    target.loadFromString(JSON.stringify(file?.doc ?? {}));
    if (file?.dir !== undefined) target.makePathsAbsolute(file.dir);
  };
  load(config, first);
  for (const file of rest) {
    const more = new ClientConfig();
    load(more, file);
    config.mergeConfig(more, true);
  }
  config.setCurrentContext(context);
  return (options) => config.applyToHTTPSOptions(options);
}
