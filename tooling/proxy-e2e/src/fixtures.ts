// The cast every scenario shares: a Service of three HTTP pods, and the client proxy's ports.
import { endpointSlice, type KubeObject, type PodSpec, pod, service } from "./cluster-objects.js";
import type { ProxyPorts } from "./linkerd-proxy.js";

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

/** The Service, its pods and the slice over them. */
export function webObjects(pods: readonly PodSpec[]): KubeObject[] {
  return [service(WEB), ...pods.map((p) => pod(p)), endpointSlice(WEB.name, WEB.targetPort, pods)];
}
