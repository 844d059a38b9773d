// startKubeEnv: etcd and kube-apiserver as local processes on loopback, envtest-style.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_USER, generateCerts } from "./certs.js";
import { type HttpResponse, httpRequest } from "./http.js";
import { writeKubeconfig } from "./kubeconfig.js";
import {
  type ApiResource,
  groupVersionPath,
  type KubeObject,
  type Manifests,
  objectPath,
  parseManifests,
} from "./manifests.js";
import { freePorts, logTail, type ManagedProcess, startProcess, trackDir } from "./processes.js";
import { ensureBinaries } from "./provision.js";

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The directory holding the Linkerd CRD manifests installed by default. */
export const CRD_DIR = join(PACKAGE_DIR, "crds");

/** The field manager used by `apply` (server-side apply). */
export const FIELD_MANAGER = "k8s-env";

export interface StartKubeEnvOptions {
  /** Use these binaries instead of provisioning (building/caching) them. */
  binaries?: { kubeApiServer: string; etcd: string };
  /** Kubernetes release to provision; default K8S_VERSION or the package default. */
  k8sVersion?: string;
  /** Install the Linkerd CRDs from crds/ and wait until Established. Default true. */
  installCrds?: boolean;
  /** More CRD manifest files (YAML) to install and wait for. */
  extraCrdFiles?: string[];
  /**
   * kube-apiserver's watch cache. Default false (`--watch-cache=false`): watches and lists are
   * served from etcd directly, so a watch from a resourceVersion older than an etcd compaction
   * fails with 410 Gone (an ERROR event with code 410) reliably, right after `compactEtcd()`.
   */
  watchCache?: boolean;
  /** Extra kube-apiserver flags, appended (a later flag wins). */
  apiServerArgs?: string[];
  /** Extra etcd flags, appended. */
  etcdArgs?: string[];
  /** Time allowed for each server to become ready. Default 120s. */
  startTimeoutMs?: number;
  /** Copy server output to stderr (default: K8S_ENV_VERBOSE=1); otherwise it goes to log files. */
  verbose?: boolean;
}

export interface KubeResponse<T = unknown> {
  status: number;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface RequestOptions {
  /** Content-Type of the body; default JSON (YAML for a string body that is not JSON; merge-patch for PATCH). */
  contentType?: string;
  headers?: Record<string, string>;
  /** Authenticate with this bearer token instead of the admin client certificate. */
  token?: string;
  timeoutMs?: number;
}

export interface AuditEvent {
  kind: "Event";
  apiVersion: string;
  level: string;
  auditID: string;
  stage: "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";
  requestURI: string;
  verb: string;
  user: { username: string; groups?: string[] };
  userAgent?: string;
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion?: string;
    resourceVersion?: string;
    subresource?: string;
  };
  responseStatus?: { code?: number; status?: string; reason?: string; message?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  [key: string]: unknown;
}

export interface AuditFilter {
  verb?: string;
  resource?: string;
  namespace?: string;
  stage?: AuditEvent["stage"];
  username?: string;
  userAgent?: string | RegExp;
}

export interface ServiceAccountKubeconfig {
  kubeconfigPath: string;
  token: string;
  /** system:serviceaccount:<ns>:<name> */
  username: string;
}

export interface KubeEnv {
  /** Admin kubeconfig (client cert in system:masters), inside the temp dir. */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly caPem: string;
  readonly adminCertPem: string;
  readonly adminKeyPem: string;
  /** http://127.0.0.1:<port> */
  readonly etcdEndpoint: string;
  /** gitVersion from /version, e.g. "v1.37.2". */
  readonly apiServerVersion: string;
  /** The environment's temp dir (removed by stop()). */
  readonly tempDir: string;
  readonly pids: { readonly etcd: number; readonly kubeApiServer: number };
  /** A request to the API server as admin (or with `options.token`); never throws on HTTP status. */
  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<KubeResponse<T>>;
  /** Server-side applies YAML/JSON manifests (multi-document) or objects; returns the applied objects. */
  apply(manifests: Manifests): Promise<KubeObject[]>;
  /** Creates (if missing) the namespace and ServiceAccount, and writes a kubeconfig with a TokenRequest token. */
  createServiceAccountKubeconfig(
    namespace: string,
    name: string,
    options?: { expirationSeconds?: number },
  ): Promise<ServiceAccountKubeconfig>;
  /**
   * Stops kube-apiserver and starts it again on the same port with the same etcd; resolves when
   * /readyz is ok. By default SIGTERM, then SIGKILL after `graceMs` (default 2000: with watches
   * open its graceful shutdown can hang). `{ kill: true }` simulates a crash (SIGKILL at once).
   */
  restartApiServer(options?: { kill?: boolean; graceMs?: number }): Promise<void>;
  /** Compacts etcd at its current revision (physical); returns that revision. */
  compactEtcd(): Promise<number>;
  /** The audit log (Metadata level, all stages but RequestReceived), optionally filtered. */
  auditEvents(filter?: AuditFilter): AuditEvent[];
  /** Stops both servers and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

function parseBody(res: HttpResponse): unknown {
  const type = String(res.headers["content-type"] ?? "");
  if (type.includes("json") && res.text !== "") {
    try {
      return JSON.parse(res.text);
    } catch {
      return res.text;
    }
  }
  return res.text;
}

function describe(res: KubeResponse): string {
  const b = res.body as { message?: string } | string;
  return `${res.status} ${typeof b === "object" && b?.message ? b.message : res.text.slice(0, 500)}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts etcd and kube-apiserver on free 127.0.0.1 ports with a fresh temp dir, waits for /readyz,
 * and installs the Linkerd CRDs (ServiceProfile, Server, ExternalWorkload). Provisions the
 * binaries first if needed (minutes on the first run, see ensureBinaries). Always pair with stop().
 */
export async function startKubeEnv(options: StartKubeEnvOptions = {}): Promise<KubeEnv> {
  // Free ports are chosen before the servers bind them; another process may take one between.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error) || !/address already in use/.test(err.message))
        throw err;
    }
  }
}

async function startOnce(options: StartKubeEnvOptions): Promise<KubeEnv> {
  const verbose = options.verbose ?? process.env.K8S_ENV_VERBOSE === "1";
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const binaries =
    options.binaries ??
    (await ensureBinaries(options.k8sVersion ? { k8sVersion: options.k8sVersion } : {}));
  for (const bin of [binaries.kubeApiServer, binaries.etcd]) {
    if (!existsSync(bin)) throw new Error(`k8s-env: binary not found: ${bin}`);
  }

  const tempDir = realpathSync(mkdtempSync(join(tmpdir(), "k8s-env-")));
  const untrackDir = trackDir(tempDir);
  let etcd: ManagedProcess | undefined;
  let apiServer: ManagedProcess | undefined;
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await apiServer?.stop(3000);
    await etcd?.stop(3000);
    if (process.env.K8S_ENV_KEEP_TEMP !== "1") rmSync(tempDir, { recursive: true, force: true });
    untrackDir();
  };

  try {
    const certs = generateCerts(tempDir);
    const [etcdClientPort, etcdPeerPort, apiPort] = (await freePorts(3)) as [
      number,
      number,
      number,
    ];
    const etcdEndpoint = `http://127.0.0.1:${etcdClientPort}`;
    const server = `https://127.0.0.1:${apiPort}`;
    const childEnv = {
      ...process.env,
      K8S_ENV_PARENT_PID: String(process.pid),
      K8S_ENV_TEMP_DIR: tempDir,
    };

    // etcd: plain HTTP on loopback, no fsync (test data only).
    const etcdArgs = [
      "--name=k8s-env",
      `--data-dir=${join(tempDir, "etcd")}`,
      `--listen-client-urls=${etcdEndpoint}`,
      `--advertise-client-urls=${etcdEndpoint}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=k8s-env=http://127.0.0.1:${etcdPeerPort}`,
      "--initial-cluster-state=new",
      "--unsafe-no-fsync",
      "--log-level=warn",
      ...(options.etcdArgs ?? []),
    ];
    etcd = startProcess("etcd", binaries.etcd, etcdArgs, {
      logPath: join(tempDir, "etcd.log"),
      env: childEnv,
      verbose,
    });
    await waitFor(
      etcd,
      timeoutMs,
      async () =>
        (await httpRequest(`${etcdEndpoint}/health`, { method: "GET", timeoutMs: 2000 })).status ===
        200,
    );

    writeFileSync(join(tempDir, "audit-policy.yaml"), AUDIT_POLICY);
    const auditLog = join(tempDir, "audit.log");
    const apiArgs = [
      `--etcd-servers=${etcdEndpoint}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(tempDir, "apiserver-certs")}`,
      `--tls-cert-file=${certs.servingCert}`,
      `--tls-private-key-file=${certs.servingKey}`,
      `--client-ca-file=${certs.caCert}`,
      `--service-account-key-file=${certs.saPublicKey}`,
      `--service-account-signing-key-file=${certs.saPrivateKey}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--service-cluster-ip-range=10.0.0.0/24",
      // The lease reconciler refuses a loopback advertise address; nothing needs the endpoints.
      "--endpoint-reconciler-type=none",
      "--authorization-mode=RBAC",
      // No controller-manager creates the "default" ServiceAccount, so pods could not be created.
      "--disable-admission-plugins=ServiceAccount",
      "--allow-privileged=true",
      `--watch-cache=${options.watchCache ? "true" : "false"}`,
      `--audit-policy-file=${join(tempDir, "audit-policy.yaml")}`,
      `--audit-log-path=${auditLog}`,
      "--audit-log-mode=blocking",
      "--profiling=false",
      ...(options.apiServerArgs ?? []),
    ];
    const startApiServer = () =>
      startProcess("kube-apiserver", binaries.kubeApiServer, apiArgs, {
        logPath: join(tempDir, "kube-apiserver.log"),
        env: childEnv,
        verbose,
      });
    const tls = { ca: certs.caPem, cert: certs.adminCertPem, key: certs.adminKeyPem };
    const waitReady = (p: ManagedProcess) =>
      waitFor(p, timeoutMs, async () => {
        const r = await httpRequest(`${server}/readyz`, { method: "GET", ...tls, timeoutMs: 5000 });
        return r.status === 200;
      });

    apiServer = startApiServer();
    await waitReady(apiServer);

    const kubeconfigPath = writeKubeconfig(join(tempDir, "admin.kubeconfig"), server, certs.caPem, {
      name: ADMIN_USER,
      clientCertificatePem: certs.adminCertPem,
      clientKeyPem: certs.adminKeyPem,
    });

    const request = async <T = unknown>(
      method: string,
      path: string,
      body?: unknown,
      opts: RequestOptions = {},
    ): Promise<KubeResponse<T>> => {
      let payload: string | undefined;
      let contentType = opts.contentType;
      if (body !== undefined) {
        if (typeof body === "string") {
          payload = body;
          const t = body.trimStart();
          contentType ??=
            t.startsWith("{") || t.startsWith("[") ? "application/json" : "application/yaml";
        } else {
          payload = JSON.stringify(body);
          contentType ??=
            method.toUpperCase() === "PATCH" ? "application/merge-patch+json" : "application/json";
        }
      }
      const res = await httpRequest(`${server}${path}`, {
        method: method.toUpperCase(),
        headers: { ...(contentType ? { "content-type": contentType } : {}), ...opts.headers },
        ...(payload !== undefined ? { body: payload } : {}),
        ca: certs.caPem,
        ...(opts.token
          ? { token: opts.token }
          : { cert: certs.adminCertPem, key: certs.adminKeyPem }),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      });
      return {
        status: res.status,
        body: parseBody(res) as T,
        text: res.text,
        headers: res.headers,
      };
    };

    const version = await request<{ gitVersion: string }>("GET", "/version");
    if (version.status !== 200) throw new Error(`k8s-env: GET /version: ${describe(version)}`);

    // Discovery, cached per group-version; refreshed on a miss (new CRDs).
    const discovery = new Map<string, ApiResource[]>();
    const resourceFor = async (obj: KubeObject): Promise<ApiResource> => {
      for (let attempt = 0; attempt < 2; attempt++) {
        let list = discovery.get(obj.apiVersion);
        if (list === undefined || attempt > 0) {
          const res = await request<{ resources: ApiResource[] }>(
            "GET",
            groupVersionPath(obj.apiVersion),
          );
          list = res.status === 200 ? res.body.resources : [];
          discovery.set(obj.apiVersion, list);
        }
        const found = list.find((r) => r.kind === obj.kind && !r.name.includes("/"));
        if (found) return found;
      }
      throw new Error(
        `k8s-env: the API server does not serve kind ${obj.kind} in ${obj.apiVersion}`,
      );
    };

    const apply = async (manifests: Manifests): Promise<KubeObject[]> => {
      const out: KubeObject[] = [];
      for (const obj of parseManifests(manifests)) {
        const resource = await resourceFor(obj);
        const path = `${objectPath(obj, resource)}?fieldManager=${FIELD_MANAGER}&force=true`;
        const res = await request<KubeObject>("PATCH", path, JSON.stringify(forApply(obj)), {
          contentType: "application/apply-patch+yaml",
        });
        if (res.status !== 200 && res.status !== 201) {
          throw new Error(
            `k8s-env: apply ${obj.kind} ${obj.metadata.namespace ?? ""}/${obj.metadata.name}: ${describe(res)}`,
          );
        }
        out.push(res.body);
      }
      return out;
    };

    const installCrds = async (files: string[]) => {
      const names: string[] = [];
      for (const file of files) {
        for (const crd of await apply(readFileSync(file, "utf8"))) {
          if (crd.metadata.name) names.push(crd.metadata.name);
        }
      }
      const deadline = Date.now() + timeoutMs;
      for (const name of names) {
        for (;;) {
          const res = await request<{
            status?: { conditions?: { type: string; status: string }[] };
          }>("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
          const established = res.body.status?.conditions?.some(
            (c) => c.type === "Established" && c.status === "True",
          );
          if (established) break;
          if (Date.now() > deadline)
            throw new Error(`k8s-env: CRD ${name} did not become Established`);
          await sleep(100);
        }
      }
    };

    const crdFiles = [
      ...(options.installCrds === false
        ? []
        : readdirSync(CRD_DIR)
            .filter((f) => f.endsWith(".yaml"))
            .sort()
            .map((f) => join(CRD_DIR, f))),
      ...(options.extraCrdFiles ?? []),
    ];
    if (crdFiles.length > 0) await installCrds(crdFiles);

    const env: KubeEnv = {
      kubeconfigPath,
      server,
      caPem: certs.caPem,
      adminCertPem: certs.adminCertPem,
      adminKeyPem: certs.adminKeyPem,
      etcdEndpoint,
      apiServerVersion: version.body.gitVersion,
      tempDir,
      get pids() {
        return { etcd: etcd?.pid ?? 0, kubeApiServer: apiServer?.pid ?? 0 };
      },
      request,
      apply,
      async createServiceAccountKubeconfig(namespace, name, opts = {}) {
        await apply([
          { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
        ]);
        const res = await request<{ status: { token: string } }>(
          "POST",
          `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`,
          {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenRequest",
            spec: { expirationSeconds: opts.expirationSeconds ?? 3600 },
          },
        );
        if (res.status !== 201 && res.status !== 200) {
          throw new Error(`k8s-env: TokenRequest for ${namespace}/${name}: ${describe(res)}`);
        }
        const token = res.body.status.token;
        const username = `system:serviceaccount:${namespace}:${name}`;
        const kubeconfig = writeKubeconfig(
          join(tempDir, `sa-${namespace}-${name}.kubeconfig`),
          server,
          certs.caPem,
          { name: username, token },
          namespace,
        );
        return { kubeconfigPath: kubeconfig, token, username };
      },
      async restartApiServer(opts = {}) {
        if (stopped) throw new Error("k8s-env: the environment is stopped");
        await apiServer?.stop(opts.kill ? 0 : (opts.graceMs ?? 2000));
        apiServer = startApiServer();
        await waitReady(apiServer);
      },
      async compactEtcd() {
        const etcdPost = (path: string, body: unknown) =>
          httpRequest(`${etcdEndpoint}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
        const range = await etcdPost("/v3/kv/range", {
          key: Buffer.from("/").toString("base64"),
          limit: 1,
        });
        if (range.status !== 200)
          throw new Error(`k8s-env: etcd range: ${range.status} ${range.text}`);
        const revision = Number(
          (JSON.parse(range.text) as { header: { revision: string } }).header.revision,
        );
        const res = await etcdPost("/v3/kv/compaction", {
          revision: String(revision),
          physical: true,
        });
        if (res.status !== 200 && !res.text.includes("compacted")) {
          throw new Error(`k8s-env: etcd compaction at ${revision}: ${res.status} ${res.text}`);
        }
        return revision;
      },
      auditEvents(filter = {}) {
        let text: string;
        try {
          text = readFileSync(auditLog, "utf8");
        } catch {
          return [];
        }
        const events: AuditEvent[] = [];
        for (const line of text.split("\n")) {
          if (line.trim() === "") continue;
          try {
            events.push(JSON.parse(line) as AuditEvent);
          } catch {
            // a line being written
          }
        }
        return events.filter(
          (e) =>
            (filter.verb === undefined || e.verb === filter.verb) &&
            (filter.resource === undefined || e.objectRef?.resource === filter.resource) &&
            (filter.namespace === undefined || e.objectRef?.namespace === filter.namespace) &&
            (filter.stage === undefined || e.stage === filter.stage) &&
            (filter.username === undefined || e.user.username === filter.username) &&
            (filter.userAgent === undefined ||
              (typeof filter.userAgent === "string"
                ? e.userAgent === filter.userAgent
                : filter.userAgent.test(e.userAgent ?? ""))),
        );
      },
      stop,
    };
    return env;
  } catch (err) {
    const logs = [etcd, apiServer]
      .filter((p): p is ManagedProcess => p !== undefined)
      .map((p) => `--- ${p.name} log (last lines) ---\n${logTail(p.logPath)}`)
      .join("\n");
    await stop();
    if (err instanceof Error && logs) err.message += `\n${logs}`;
    throw err;
  }
}

/** Drops the server-populated metadata, so an object read back from the API can be applied. */
function forApply(obj: KubeObject): KubeObject {
  const {
    managedFields,
    resourceVersion,
    uid,
    creationTimestamp,
    generation,
    selfLink,
    ...metadata
  } = obj.metadata;
  return { ...obj, metadata };
}

/** Polls `check` until it is true; fails early if the process exits. */
async function waitFor(
  p: ManagedProcess,
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (!p.isRunning()) {
      const { code, signal } = await p.exited;
      throw new Error(
        `k8s-env: ${p.name} exited (${signal ?? `code ${code}`}) before it was ready`,
      );
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await sleep(100);
  }
  await p.stop();
  throw new Error(
    `k8s-env: ${p.name} was not ready within ${timeoutMs}ms${lastError ? ` (${lastError})` : ""}`,
  );
}
