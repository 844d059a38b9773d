// A small cluster as manifests, for running the CLI against the real server: Service `web` in
// namespace `shop` with two meshed Deployment pods behind one EndpointSlice, a ServiceProfile,
// and a Service `empty` without endpoints.

export const SHOP_WEB = "web.shop.svc.cluster.local:80";
export const SHOP_EMPTY = "empty.shop.svc.cluster.local:80";
export const SHOP_IDENTITY = "web.shop.serviceaccount.identity.linkerd.cluster.local";

export const shopPods = [
  { name: "web-6d4cf56db6-aaaaa", ip: "10.244.0.11", zone: "zone-a" },
  { name: "web-6d4cf56db6-bbbbb", ip: "10.244.0.12", zone: "zone-b" },
] as const;

const pod = ({ name, ip }: (typeof shopPods)[number]) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: shop
  uid: uid-${name}
  labels:
    app: web
    pod-template-hash: 6d4cf56db6
    linkerd.io/control-plane-ns: linkerd
  ownerReferences:
    - { apiVersion: apps/v1, kind: ReplicaSet, name: web-6d4cf56db6, uid: uid-rs, controller: true }
spec:
  nodeName: node-a
  serviceAccountName: web
  containers:
    - name: web
      ports: [{ name: http, containerPort: 8080 }]
    - name: linkerd-proxy
      env:
        - { name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR, value: "0.0.0.0:4143" }
        - { name: LINKERD2_PROXY_ADMIN_LISTEN_ADDR, value: "0.0.0.0:4191" }
        - { name: LINKERD2_PROXY_CONTROL_LISTEN_ADDR, value: "0.0.0.0:4190" }
status:
  phase: Running
  podIP: ${ip}
  podIPs: [{ ip: ${ip} }]
`;

export const shopWorkloadsYaml = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  clusterIP: 10.96.0.80
  clusterIPs: [10.96.0.80]
  selector: { app: web }
  ports:
    - { name: http, port: 80, targetPort: http }
---
apiVersion: v1
kind: Service
metadata:
  name: empty
  namespace: shop
spec:
  clusterIP: 10.96.0.81
  clusterIPs: [10.96.0.81]
  selector: { app: nothing }
  ports:
    - { name: http, port: 80, targetPort: 8080 }
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-6d4cf56db6
  namespace: shop
  uid: uid-rs
  ownerReferences:
    - { apiVersion: apps/v1, kind: Deployment, name: web, uid: uid-deploy, controller: true }
---
${shopPods.map(pod).join("---\n")}`;

/** The EndpointSlice of `web`, with the given pods as ready endpoints. */
export function shopSliceYaml(pods: readonly (typeof shopPods)[number][]): string {
  const endpoints = pods
    .map(
      ({ name, ip, zone }) => `  - addresses: [${ip}]
    conditions: { ready: true }
    zone: ${zone}
    targetRef: { kind: Pod, namespace: shop, name: ${name} }
`,
    )
    .join("");
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abcde
  namespace: shop
  labels: { kubernetes.io/service-name: web }
addressType: IPv4
ports:
  - { name: http, port: 8080 }
endpoints:
${endpoints}`;
}

export const shopProfileYaml = `apiVersion: linkerd.io/v1alpha2
kind: ServiceProfile
metadata:
  name: web.shop.svc.cluster.local
  namespace: shop
spec:
  routes:
    - name: GET /books/{id}
      condition: { method: GET, pathRegex: "/books/[^/]*" }
      isRetryable: true
      timeout: 250ms
      responseClasses:
        - condition: { status: { min: 500, max: 599 } }
          isFailure: true
  retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: 15s }
  dstOverrides:
    - { authority: web.shop.svc.cluster.local:80, weight: 750m }
    - { authority: web-canary.shop.svc.cluster.local, weight: 250m }
`;
