// The environment Linkerd's proxy injector gives a proxy, taken from the rendered chart's own
// injected `linkerd-proxy` container (the one in linkerd-destination) and resolved for one pod
// as the kubelet would: field references (pod name, namespace, uid, IP, node, service account),
// the trust roots from their ConfigMap, `$(VAR)` references. What the injector sets per workload
// is then put in for this pod:
// - the control-plane addresses: the chart's are the destination pod's own (`localhost.`); a
//   workload gets the headless Services' names (injectorAddresses), or with loopback addressing
//   127.0.0.1, bridged to the control plane's pods and reached in plaintext;
// - LINKERD2_PROXY_INBOUND_PORTS: the pod's own container ports;
// - the listen addresses: every pod of a test shares one network namespace, so each proxy binds
//   its pod's IP where the chart says 0.0.0.0 or 127.0.0.1 (the ports are the chart's);
// - the identity folder and token file: where the suite wrote them.
import type { IdentityFiles } from "@destination/proxy-e2e/proxy-process";
import type { EnvVar, RenderedChart } from "./rendered-chart.js";

export interface ProxiedPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly ip: string;
  readonly nodeName: string;
  readonly serviceAccount: string;
  /** The pod's container ports (LINKERD2_PROXY_INBOUND_PORTS). */
  readonly ports: readonly number[];
  /** Not a pod but an ExternalWorkload of this name (its policy is looked up as one). */
  readonly externalWorkload?: boolean;
}

/** Where the proxy finds the control plane (host:port each). */
export interface ControlPlaneAddresses {
  readonly destination: string;
  readonly policy: string;
  readonly identity: string;
}

function fieldValue(pod: ProxiedPod, path: string): string {
  switch (path) {
    case "metadata.name":
      return pod.name;
    case "metadata.namespace":
      return pod.namespace;
    case "metadata.uid":
      return pod.uid;
    case "status.podIP":
    case "status.podIPs":
      return pod.ip;
    case "spec.nodeName":
      return pod.nodeName;
    case "spec.serviceAccountName":
      return pod.serviceAccount;
    default:
      throw new Error(`no value for the field reference ${path}`);
  }
}

/** Kubernetes' `$(VAR)` expansion: a reference to a variable defined earlier is replaced. */
function expand(value: string, defined: Record<string, string>): string {
  return value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (ref, name: string) =>
    Object.hasOwn(defined, name) ? (defined[name] ?? ref) : ref,
  );
}

function resolve(v: EnvVar, pod: ProxiedPod, chart: RenderedChart, env: Record<string, string>) {
  if (v.value !== undefined) return expand(v.value, env);
  const field = v.valueFrom?.fieldRef?.fieldPath;
  if (field !== undefined) return fieldValue(pod, field);
  const cm = v.valueFrom?.configMapKeyRef;
  if (cm !== undefined) return chart.data("ConfigMap", cm.name, cm.key);
  throw new Error(`no value for ${v.name}`);
}

const LISTEN_ADDRS = [
  "LINKERD2_PROXY_CONTROL_LISTEN_ADDR",
  "LINKERD2_PROXY_ADMIN_LISTEN_ADDR",
  "LINKERD2_PROXY_OUTBOUND_LISTEN_ADDR",
  "LINKERD2_PROXY_OUTBOUND_LISTEN_ADDRS",
  "LINKERD2_PROXY_INBOUND_LISTEN_ADDR",
];

/** The port of a listen address as the chart gives it (`0.0.0.0:4191` → 4191). */
export function chartPort(chart: RenderedChart, name: string): number {
  const v = chart
    .container("linkerd-destination", "linkerd-proxy")
    .env?.find((e) => e.name === name);
  const port = Number(v?.value?.split(":").pop());
  if (!Number.isInteger(port) || port <= 0) throw new Error(`the chart's ${name} has no port`);
  return port;
}

/** A Deployment's `linkerd-proxy` environment resolved for `pod`, as the kubelet would. */
function resolvedEnv(chart: RenderedChart, deployment: string, pod: ProxiedPod) {
  const env: Record<string, string> = {};
  for (const v of chart.container(deployment, "linkerd-proxy").env ?? []) {
    env[v.name] = resolve(v, pod, chart, env);
  }
  return env;
}

/**
 * The control plane's addresses as the injector gives any other pod, read from the chart: a
 * control-plane pod's own proxy reaches its own containers at `localhost.`, the others through
 * the headless Services (the identity pod's proxy shows destination's and policy's, the
 * destination pod's proxy shows identity's).
 */
export function injectorAddresses(chart: RenderedChart): ControlPlaneAddresses {
  const of = (deployment: string, name: string) => {
    const v = chart.container(deployment, "linkerd-proxy").env?.find((e) => e.name === name);
    if (v?.value === undefined) throw new Error(`${deployment}'s proxy has no ${name}`);
    return v.value;
  };
  return {
    destination: of("linkerd-identity", "LINKERD2_PROXY_DESTINATION_SVC_ADDR"),
    policy: of("linkerd-identity", "LINKERD2_PROXY_POLICY_SVC_ADDR"),
    identity: of("linkerd-destination", "LINKERD2_PROXY_IDENTITY_SVC_ADDR"),
  };
}

/**
 * The proxy of a control-plane pod (`deployment`'s own `linkerd-proxy`), exactly as rendered:
 * only the pod's fields and the identity files are filled in.
 */
export function controlPlaneProxyEnv(
  chart: RenderedChart,
  deployment: string,
  pod: ProxiedPod,
  files: IdentityFiles,
): Record<string, string> {
  return {
    ...resolvedEnv(chart, deployment, pod),
    LINKERD2_PROXY_IDENTITY_DIR: files.dir,
    LINKERD2_PROXY_IDENTITY_TOKEN_FILE: files.tokenFile,
  };
}

export function injectedProxyEnv(
  chart: RenderedChart,
  pod: ProxiedPod,
  controlPlane: ControlPlaneAddresses,
  files: IdentityFiles,
): Record<string, string> {
  const env = resolvedEnv(chart, "linkerd-destination", pod);
  for (const name of LISTEN_ADDRS) {
    const value = env[name];
    if (value !== undefined) env[name] = value.replace(/^(0\.0\.0\.0|127\.0\.0\.1):/, `${pod.ip}:`);
  }
  return {
    ...env,
    LINKERD2_PROXY_DESTINATION_SVC_ADDR: controlPlane.destination,
    LINKERD2_PROXY_POLICY_SVC_ADDR: controlPlane.policy,
    LINKERD2_PROXY_IDENTITY_SVC_ADDR: controlPlane.identity,
    LINKERD2_PROXY_INBOUND_PORTS: pod.ports.join(","),
    ...(pod.externalWorkload
      ? {
          LINKERD2_PROXY_POLICY_WORKLOAD: JSON.stringify({
            ns: pod.namespace,
            external_workload: pod.name,
          }),
        }
      : {}),
    LINKERD2_PROXY_IDENTITY_DIR: files.dir,
    LINKERD2_PROXY_IDENTITY_TOKEN_FILE: files.tokenFile,
  };
}
