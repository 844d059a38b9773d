// Starting one linkerd2-proxy process in a namespace, whatever its environment: writes the
// identity files the proxy reads (key.p8, csr.der, the token), runs it under its own uid and
// waits for its admin /ready. LinkerdProxy (this suite) and the mesh suite build the environment.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { httpGet } from "./http-over-socket.js";
import type { NamespaceAgent } from "./namespace-agent.js";
import type { NetworkNamespace, StartedProcess } from "./network-namespace.js";
import { parseSeries, type Series } from "./prometheus-text.js";
import { proxyBinary } from "./proxy-binary.js";
import { TestPki } from "./test-pki.js";
import { untilReady } from "./until-ready.js";

/** Where the identity files were written, for the proxy's environment. */
export interface IdentityFiles {
  /** LINKERD2_PROXY_IDENTITY_DIR: key.p8 and csr.der. */
  readonly dir: string;
  /** LINKERD2_PROXY_IDENTITY_TOKEN_FILE. */
  readonly tokenFile: string;
}

export interface ProxyLaunch {
  /** A label for logs and bridges. */
  readonly name: string;
  /** The name its CSR asks for. */
  readonly identity: string;
  /** URI SANs its CSR asks for too (a SPIFFE ID). */
  readonly uris?: readonly string[];
  readonly uid: number;
  /** The token Certify is shown. */
  readonly token: string;
  /** The whole environment but PATH, given where the identity files are. */
  env(files: IdentityFiles): Record<string, string>;
  /**
   * A resolv.conf the proxy reads instead of the machine's (bind-mounted over /etc/resolv.conf
   * in a mount namespace of its own): the namespace's DNS server for the control plane's names.
   */
  readonly resolvConf?: string;
  /** Where its admin server listens (LINKERD2_PROXY_ADMIN_LISTEN_ADDR), to reach /ready. */
  readonly admin: { readonly host: string; readonly port: number };
}

export interface LaunchedProxy {
  readonly process: StartedProcess;
  /** A Unix socket reaching its admin server. */
  readonly adminSocket: string;
}

export class ProxyProcess {
  protected constructor(
    readonly process: StartedProcess,
    private readonly adminSocket: string,
  ) {}

  protected static async launch(
    ns: NetworkNamespace,
    agent: NamespaceAgent,
    workDir: string,
    launch: ProxyLaunch,
  ): Promise<LaunchedProxy> {
    const dir = join(workDir, `proxy-${launch.name}`);
    const identityDir = join(dir, "identity");
    mkdirSync(identityDir, { recursive: true });
    const material = await TestPki.keyMaterial(launch.identity, launch.uris);
    writeFileSync(join(identityDir, "key.p8"), material.keyPkcs8);
    writeFileSync(join(identityDir, "csr.der"), material.csrDer);
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, launch.token);
    // The proxy runs under its own uid and must read what the test wrote as root.
    for (const p of [workDir, dir, identityDir]) chmodSync(p, 0o755);
    for (const f of [join(identityDir, "key.p8"), join(identityDir, "csr.der"), tokenFile]) {
      chmodSync(f, 0o644);
    }
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...launch.env({ dir: identityDir, tokenFile }),
    };
    const setpriv = [
      "setpriv",
      `--reuid=${launch.uid}`,
      `--regid=${launch.uid}`,
      "--clear-groups",
      "--",
      proxyBinary(),
    ];
    const [cmd, ...args] =
      launch.resolvConf === undefined
        ? setpriv
        : [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind "$0" /etc/resolv.conf && exec "$@"',
            launch.resolvConf,
            ...setpriv,
          ];
    const proc = ns.start(`proxy-${launch.name}`, cmd ?? "setpriv", args, { env });
    // A proxy started again (a restarted pod) replaces its predecessor's bridge.
    await agent.close(`admin-${launch.name}`).catch(() => {});
    const adminSocket = await agent.forward(
      `admin-${launch.name}`,
      launch.admin.host,
      launch.admin.port,
    );
    await untilReady(proc, adminSocket, 30_000, 200);
    return { process: proc, adminSocket };
  }

  async metrics(): Promise<Series[]> {
    const answer = await httpGet(this.adminSocket, "/metrics");
    if (answer.status !== 200) throw new Error(`proxy /metrics: ${answer.status}`);
    return parseSeries(answer.body);
  }

  async metricsText(): Promise<string> {
    return (await httpGet(this.adminSocket, "/metrics")).body;
  }
}
