// Scenario 5a: an ExternalWorkload selected by a Service. Nothing writes its EndpointSlice but
// the destination service's ExternalWorkload controller (while it holds the endpoint-write
// Lease); the client's proxy then reaches the workload over mTLS with the identity the
// ExternalWorkload names: the SPIFFE ID in the certificate of the proxy beside the workload
// (from a SPIRE stand-in signing with the release's issuer, see src/workload-identity.ts).
import {
  fqdn,
  type KubeObject,
  NAMESPACE,
  node,
  type PodSpec,
  podIdentity,
  service,
} from "@destination/proxy-e2e/cluster-objects";
import { eventually } from "@destination/proxy-e2e/eventually";
import { podOf, sidecarSender, untilAnswered } from "@destination/proxy-e2e/traffic";
import { describe, expect, it } from "vitest";
import { CLIENT } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { meshFile, meshWith } from "../src/mesh-lifecycle.js";
import { spiffeId } from "../src/pod-proxy.js";

const file = meshFile();

const EXT = { name: "ext", clusterIP: "10.96.0.50", port: 80, targetPort: 8080 } as const;
/** The workload outside the cluster: its address and the proxy beside it. */
const WORKLOAD: PodSpec = {
  name: "ext-1",
  app: EXT.name,
  ip: "10.244.5.11",
  port: EXT.targetPort,
  serviceAccount: "ext",
};

function externalWorkload(w: PodSpec): KubeObject {
  const serviceAccount = w.serviceAccount ?? w.app;
  // A workload's identity is a URI (the destination service sends it as one).
  const identity = spiffeId({ serviceAccount, namespace: NAMESPACE });
  const serverName = podIdentity(serviceAccount);
  return {
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: { name: w.name, namespace: NAMESPACE, labels: { app: w.app } },
    spec: {
      meshTLS: { identity, serverName },
      workloadIPs: [{ ip: w.ip }],
      ports: [{ name: "http", port: w.port }],
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

interface SliceList {
  items: { metadata: { labels?: Record<string, string> }; endpoints?: { addresses: string[] }[] }[];
}

describe.each(DESTINATIONS)("with %s destination service", (kind) => {
  const mesh = meshWith(file, kind);

  it(`writes the slice of an ExternalWorkload behind a Service, and a proxy reaches it over mTLS`, async () => {
    const w = await mesh.workloads();
    await w.serveApp(WORKLOAD);
    await w.apply(node(), service(EXT), externalWorkload(WORKLOAD));
    const slice = await eventually("the controller to write the Service's slice", async () => {
      const res = await mesh.cluster.env.request<SliceList>(
        "GET",
        `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${EXT.name}`,
      );
      return res.body.items.find((s) =>
        s.endpoints?.some((e) => e.addresses.includes(WORKLOAD.ip)),
      );
    });
    expect(slice.metadata.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe(
      "linkerd-external-workloads-controller",
    );

    await w.startExternalWorkloadProxy(WORKLOAD);
    await w.startClientPod(CLIENT);
    const socket = await w.agent.forward("ext-clusterip", EXT.clusterIP, EXT.port);
    const send = sidecarSender(socket, fqdn(EXT.name, EXT.port));
    await untilAnswered(send, [WORKLOAD.name]);
    // The workload's proxy verified the client's certificate: mTLS with the named identity.
    expect(podOf(await send())).toEqual(
      expect.objectContaining({ pod: WORKLOAD.name, clientId: podIdentity("client") }),
    );
  });
});
