// The drop-in needs nothing the chart does not grant: on a real kube-apiserver with Linkerd's
// CRDs, the chart's RBAC objects applied for real (from the post-rendered chart), the server
// started with the destination container's args from that render, a token of the chart's
// ServiceAccount `linkerd-destination` and a pod's HOSTNAME syncs, answers a proxy's Get, takes
// the ExternalWorkload controller's Lease and writes a workload's EndpointSlice, and is refused
// nothing.
import { type KubeEnv, type KubeObject, parseManifests, startKubeEnv } from "@destination/k8s-env";
import {
  CLUSTER_POD,
  namespace,
  pod,
  podEndpoint,
  service,
  slice,
} from "@destination/test-support/builders";
import { connect, get, ipv4 } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_LINKERD } from "../src/deploy-linkerd.js";
import { destinationContainer } from "../src/destination-container.js";
import { type RunningServer, startDestinationServer } from "../src/destination-server.js";
import { helmWithPlugin, renderControlPlane } from "../src/helm.js";
import { linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";

const release = linkerdRelease();
/** The test builders leave container images out; the API server requires one (nothing pulls it). */
function withImages(obj: object): KubeObject {
  const pod = structuredClone(obj) as KubeObject & { spec: { containers: { image?: string }[] } };
  for (const c of pod.spec.containers) c.image ??= "registry.k8s.io/pause:3.10";
  return pod;
}

/** HOSTNAME, as a pod of the Deployment has it. */
const POD_NAME = "linkerd-destination-7d9c5b-x2k4q";

const RBAC_KINDS = new Set([
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
]);

describe.skipIf(!release)(
  `destination-server with the chart's ServiceAccount${release ? "" : ` (skipped: ${NO_RELEASE})`}`,
  () => {
    let env: KubeEnv | undefined;
    let server: RunningServer | undefined;
    let username = "";
    let startedAt = new Date();

    beforeAll(async () => {
      if (!release) return;
      env = await startKubeEnv({ installCrds: false, extraCrdFiles: [release.rendered.crds] });
      const helm = await helmWithPlugin();
      let objects: KubeObject[];
      try {
        objects = parseManifests(
          await renderControlPlane(helm, release, {
            args: ["--post-renderer", DEPLOY_LINKERD.pluginName],
          }),
        );
      } finally {
        helm.dispose();
      }
      await env.apply(namespace("linkerd"));
      await env.apply(objects.filter((o) => RBAC_KINDS.has(o.kind)));
      const sa = await env.createServiceAccountKubeconfig("linkerd", "linkerd-destination");
      username = sa.username;

      // A meshed pod behind a Service's slice. The API server drops a created pod's status (a
      // kubelet's to write), so it goes in through the status subresource, as a kubelet's would.
      const cart = withImages(
        pod("cart-x1", {
          ...CLUSTER_POD,
          namespace: "shop",
          ip: "10.244.3.1",
          labels: {},
          ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
        }),
      );
      await env.apply([
        namespace("shop"),
        service("cart", {
          namespace: "shop",
          ports: [{ port: 8080, protocol: "TCP" }],
          clusterIP: "10.0.0.10",
        }),
        cart,
        slice("cart-1", "cart", [podEndpoint("cart-x1", "10.244.3.1", { namespace: "shop" })], {
          namespace: "shop",
          ports: [{ port: 8080, protocol: "TCP" }],
        }),
      ] as KubeObject[]);
      const status = await env.request("PATCH", "/api/v1/namespaces/shop/pods/cart-x1/status", {
        status: cart.status,
      });
      expect(status.status, status.text).toBe(200);

      const args = destinationContainer(objects).args ?? [];
      expect(args[0]).toBe("destination");
      startedAt = new Date();
      server = await startDestinationServer(args, sa.kubeconfigPath, POD_NAME);
    });
    afterAll(async () => {
      await server?.stop();
      await env?.stop();
    });

    it("syncs and answers a proxy's Get with the chart's flags", async () => {
      if (!server) throw new Error("no server");
      const client = connect(server.grpcPort);
      try {
        const stream = get(client, "cart.shop.svc.cluster.local:8080");
        expect(await stream.next()).toMatchObject({
          add: {
            addrs: [
              {
                addr: { ip: { ipv4: ipv4("10.244.3.1") }, port: 8080 },
                // The chart's -meshed-http2-client-params and transport-header mode.
                http2: { keepAlive: { interval: "10s", timeout: "3s", whileIdle: true } },
                protocolHint: { h2: {}, opaqueTransport: { inboundPort: 4143 } },
              },
            ],
            metricLabels: { namespace: "shop", service: "cart" },
          },
        });
        stream.cancel();
      } finally {
        client.close();
      }
    });

    it("takes the Lease and writes an ExternalWorkload's EndpointSlice, as upstream's container", async () => {
      if (!env || !server) throw new Error("no server");
      const api = env;
      const lease = () =>
        api.request<{ spec?: { holderIdentity?: string } }>(
          "GET",
          "/apis/coordination.k8s.io/v1/namespaces/linkerd/leases/linkerd-destination-endpoint-write",
        );
      await eventually(async () =>
        expect((await lease()).body.spec?.holderIdentity).toBe(POD_NAME),
      );

      // A mesh-expansion workload, Ready (its status through the subresource), and a Service
      // that selects it: the controller, not the test, writes the Service's slice.
      const workload = {
        apiVersion: "workload.linkerd.io/v1beta1",
        kind: "ExternalWorkload",
        metadata: { name: "vm-1", namespace: "shop", labels: { app: "vm" } },
        spec: {
          meshTLS: {
            identity: "vm-1.shop.serviceaccount.identity.linkerd.cluster.local",
            serverName: "vm-1.shop.cluster.local",
          },
          ports: [{ name: "http", port: 8080 }],
          workloadIPs: [{ ip: "10.1.0.6" }],
        },
      };
      await api.apply([
        workload,
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "vm", namespace: "shop" },
          spec: { selector: { app: "vm" }, ports: [{ name: "http", port: 8080 }] },
        },
      ] as KubeObject[]);
      const ready = await api.request(
        "PATCH",
        "/apis/workload.linkerd.io/v1beta1/namespaces/shop/externalworkloads/vm-1/status",
        {
          status: {
            conditions: [
              {
                type: "Ready",
                status: "True",
                lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
                reason: "test",
                message: "test",
              },
            ],
          },
        },
      );
      expect(ready.status, ready.text).toBe(200);
      await eventually(async () => {
        const slices = await api.request<{ items: { endpoints?: { addresses: string[] }[] }[] }>(
          "GET",
          "/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dvm",
        );
        expect(slices.body.items.flatMap((s) => s.endpoints ?? []).map((e) => e.addresses)).toEqual(
          [["10.1.0.6"]],
        );
      });
    });

    it("is refused nothing by the chart's RBAC, and logs no error", () => {
      if (!env || !server) throw new Error("no server");
      const events = env
        .auditEvents({ username })
        .filter((e) => new Date(e.requestReceivedTimestamp) >= startedAt);
      expect(events.length).toBeGreaterThan(5);
      const refused = events
        .filter((e) => e.responseStatus?.code === 401 || e.responseStatus?.code === 403)
        .map((e) => `${e.verb} ${e.objectRef?.resource} ${e.responseStatus?.code}`);
      expect(refused).toEqual([]);
      const errors = server
        .logs()
        .split("\n")
        .filter((line) => line.includes('"level":"error"') || line.includes('"level":"fatal"'));
      expect(errors).toEqual([]);
    });
  },
);
