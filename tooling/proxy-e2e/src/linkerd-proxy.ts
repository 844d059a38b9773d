// One linkerd2-proxy in the test's namespace, configured the way Linkerd's proxy injector would
// (identity, destination and policy addresses), run under a uid of its own so that iptables can
// tell its connections from the application's.
import { DESTINATION_PORT } from "./destination-server.js";
import type { NamespaceAgent } from "./namespace-agent.js";
import type { NetworkNamespace, StartedProcess } from "./network-namespace.js";
import { type IdentityFiles, ProxyProcess } from "./proxy-process.js";

/** Where the identity service is reachable inside every namespace (a bridge to the test's). */
export const IDENTITY_PORT = 8080;
const CONTROL_PLANE_IDENTITY = (name: string) =>
  `linkerd-${name}.linkerd.serviceaccount.identity.linkerd.cluster.local`;

export interface ProxyPorts {
  readonly outbound: number;
  readonly inbound: number;
  readonly admin: number;
  readonly control: number;
}

export interface ProxyOptions {
  /** A label for logs and bridges: `client`, `server`, … */
  readonly name: string;
  /** The identity it asks Certify for and serves mTLS as. */
  readonly identity: string;
  readonly uid: number;
  readonly ports: ProxyPorts;
  /** Inbound listens on every address (a proxy in front of pods) or only on loopback. */
  readonly inboundOnAllAddresses?: boolean;
  readonly ingressMode?: boolean;
  /** Pod IPs of the workload (LINKERD2_PROXY_INBOUND_IPS). */
  readonly inboundIps?: readonly string[];
  readonly extraEnv?: Record<string, string>;
}

export interface Certifier {
  readonly trustAnchorPem: string;
  issueToken(identity: string): string;
}

export class LinkerdProxy extends ProxyProcess {
  private constructor(
    readonly options: ProxyOptions,
    process: StartedProcess,
    adminSocket: string,
  ) {
    super(process, adminSocket);
  }

  /**
   * Writes the proxy's key, CSR and token into `workDir`, starts it and waits until its admin
   * server answers /ready (which needs a certificate from Certify).
   */
  static async start(
    ns: NetworkNamespace,
    agent: NamespaceAgent,
    certifier: Certifier,
    workDir: string,
    options: ProxyOptions,
  ): Promise<LinkerdProxy> {
    const { ports } = options;
    const loopback = "127.0.0.1";
    const env = (files: IdentityFiles): Record<string, string> => ({
      LINKERD2_PROXY_LOG: "warn,linkerd=info",
      LINKERD2_PROXY_LOG_FORMAT: "plain",
      LINKERD2_PROXY_CORES: "1",
      LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD: "1s",
      LINKERD2_PROXY_DESTINATION_SVC_ADDR: `${loopback}:${DESTINATION_PORT}`,
      LINKERD2_PROXY_DESTINATION_SVC_NAME: CONTROL_PLANE_IDENTITY("destination"),
      // Our server answers the policy API with Unimplemented: the proxy falls back to profiles.
      LINKERD2_PROXY_POLICY_SVC_ADDR: `${loopback}:${DESTINATION_PORT}`,
      LINKERD2_PROXY_POLICY_SVC_NAME: CONTROL_PLANE_IDENTITY("destination"),
      LINKERD2_PROXY_POLICY_WORKLOAD: JSON.stringify({ ns: "default", pod: options.name }),
      LINKERD2_PROXY_INBOUND_DEFAULT_POLICY: "all-unauthenticated",
      LINKERD2_PROXY_POLICY_CLUSTER_NETWORKS: "10.0.0.0/8",
      LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS: "10.0.0.0/8",
      LINKERD2_PROXY_DESTINATION_PROFILE_SUFFIXES: "svc.cluster.local.",
      LINKERD2_PROXY_DESTINATION_CONTEXT: JSON.stringify({
        ns: "default",
        nodeName: "node-a",
        pod: options.name,
      }),
      LINKERD2_PROXY_CONTROL_LISTEN_ADDR: `${loopback}:${ports.control}`,
      LINKERD2_PROXY_ADMIN_LISTEN_ADDR: `${loopback}:${ports.admin}`,
      LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR: `${loopback}:${ports.outbound}`,
      LINKERD2_PROXY_INBOUND_LISTEN_ADDR: `${options.inboundOnAllAddresses ? "0.0.0.0" : loopback}:${ports.inbound}`,
      LINKERD2_PROXY_IDENTITY_DIR: files.dir,
      LINKERD2_PROXY_IDENTITY_TOKEN_FILE: files.tokenFile,
      LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS: certifier.trustAnchorPem,
      LINKERD2_PROXY_IDENTITY_LOCAL_NAME: options.identity,
      LINKERD2_PROXY_IDENTITY_SERVER_ID: options.identity,
      LINKERD2_PROXY_IDENTITY_SERVER_NAME: options.identity,
      LINKERD2_PROXY_IDENTITY_SVC_ADDR: `${loopback}:${IDENTITY_PORT}`,
      LINKERD2_PROXY_IDENTITY_SVC_NAME: CONTROL_PLANE_IDENTITY("identity"),
      ...(options.ingressMode ? { LINKERD2_PROXY_INGRESS_MODE: "true" } : {}),
      ...(options.inboundIps ? { LINKERD2_PROXY_INBOUND_IPS: options.inboundIps.join(",") } : {}),
      ...options.extraEnv,
    });
    const launched = await ProxyProcess.launch(ns, agent, workDir, {
      name: options.name,
      identity: options.identity,
      uid: options.uid,
      token: certifier.issueToken(options.identity),
      env,
      admin: { host: loopback, port: ports.admin },
    });
    return new LinkerdProxy(options, launched.process, launched.adminSocket);
  }
}
