// The cast every scenario shares: a Service of HTTP pods, and the proxies' uids and ports.
import {
  endpointSlice,
  type KubeObject,
  type PodSpec,
  pod,
  podIdentity,
  type ServiceSpec,
  service,
} from "./cluster-objects.js";
import type { ProxyOptions, ProxyPorts } from "./linkerd-proxy.js";

export const CLIENT_UID = 2102;
export const SERVER_PROXY_UID = 2103;

export const CLIENT_PORTS: ProxyPorts = {
  outbound: 4140,
  inbound: 14143,
  admin: 4191,
  control: 4190,
};
export const SERVER_PROXY_PORTS: ProxyPorts = {
  outbound: 14140,
  inbound: 4143,
  admin: 4192,
  control: 4194,
};

export const WEB = { name: "web", clusterIP: "10.96.0.10", port: 80, targetPort: 8080 } as const;

export function webPod(i: number, extra: Partial<PodSpec> = {}): PodSpec {
  return {
    name: `web-${i}`,
    app: WEB.name,
    ip: `10.244.0.${10 + i}`,
    port: WEB.targetPort,
    ...extra,
  };
}

/** A Service, its pods and the slice over them. */
export function serviceObjects(svc: ServiceSpec, pods: readonly PodSpec[]): KubeObject[] {
  return [service(svc), ...pods.map((p) => pod(p)), endpointSlice(svc.name, svc.targetPort, pods)];
}

export function webObjects(pods: readonly PodSpec[]): KubeObject[] {
  return serviceObjects(WEB, pods);
}

/** The client proxy, as a meshed workload's sidecar or an ingress would run it. */
export function clientProxyOptions(ingressMode: boolean): ProxyOptions {
  return {
    name: "client",
    identity: podIdentity("client"),
    uid: CLIENT_UID,
    ports: CLIENT_PORTS,
    ingressMode,
  };
}

/** A proxy in front of meshed pods (inbound, identity of service account `serviceAccount`). */
export function serverProxyOptions(
  serviceAccount: string,
  podIps: readonly string[],
): ProxyOptions {
  return {
    name: "server",
    identity: podIdentity(serviceAccount),
    uid: SERVER_PROXY_UID,
    ports: SERVER_PROXY_PORTS,
    inboundOnAllAddresses: true,
    inboundIps: podIps,
  };
}
