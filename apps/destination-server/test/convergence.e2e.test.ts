import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import {
  checkConvergence,
  clusterObjects,
  describeConvergence,
  EndpointView,
  get,
} from "@destination/test-support/server";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./support/server-per-test.js";

const NS = "emojivoto";
const WEB = "web-svc.emojivoto.svc.cluster.local:80";
const PORTS = [{ name: "http", port: 8080 }];

function webPod(name: string, ip: string) {
  return pod(name, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    labels: { "pod-template-hash": "5f86686c4d", app: "web" },
    replicaSet: "web-5f86686c4d",
    serviceAccountName: "web",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });
}

const startServer = serverPerTest();

describe("convergence over Get", () => {
  it("a slice cached before its pods, and a ReplicaSet after them, still ends in exactly the cluster's endpoints", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("web-svc", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      }),
    );
    const server = await startServer({ cluster });
    const stream = get(server.client, WEB);
    const view = new EndpointView();

    // The slice names two pods that are not cached yet: nothing to send.
    cluster.apply(
      slice(
        "web-svc-1",
        "web-svc",
        [
          podEndpoint("web-1", "10.244.1.10", { namespace: NS }),
          podEndpoint("web-2", "10.244.1.11", { namespace: NS }),
        ],
        { namespace: NS, ports: PORTS.map((p) => ({ protocol: "TCP", ...p })) },
      ),
    );
    cluster.apply(webPod("web-1", "10.244.1.10"));
    view.apply(await stream.next());
    expect(view.addresses()).toEqual(["10.244.1.10:8080"]);
    cluster.apply(webPod("web-2", "10.244.1.11"));
    view.apply(await stream.next());
    expect(view.addresses()).toEqual(["10.244.1.10:8080", "10.244.1.11:8080"]);
    expect(view.endpoints.get("10.244.1.11:8080")?.addr.metricLabels.replicaset).toBe(
      "web-5f86686c4d",
    );

    // The ReplicaSet arrives last: both endpoints are re-announced under their Deployment.
    cluster.apply(replicaSet("web-5f86686c4d", "web", { namespace: NS }));
    view.apply(await stream.next());
    expect(view.endpoints.get("10.244.1.10:8080")?.addr.metricLabels.deployment).toBe("web");
    expect(view.endpoints.get("10.244.1.11:8080")?.addr.metricLabels.deployment).toBe("web");

    const report = await checkConvergence([{ path: WEB, view }], clusterObjects(cluster));
    expect(describeConvergence(report)).toBe("1 streams: 0 missing, 0 extra, 0 stale");
    stream.cancel();
  });

  it("reports each endpoint a stream lacks, holds in excess, or holds with other values", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("web-svc", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      }),
    );
    cluster.apply(replicaSet("web-5f86686c4d", "web", { namespace: NS }));
    cluster.apply(webPod("web-1", "10.244.1.10"));
    cluster.apply(webPod("web-2", "10.244.1.11"));
    cluster.apply(
      slice(
        "web-svc-1",
        "web-svc",
        [
          podEndpoint("web-1", "10.244.1.10", { namespace: NS }),
          podEndpoint("web-2", "10.244.1.11", { namespace: NS }),
        ],
        { namespace: NS, ports: PORTS.map((p) => ({ protocol: "TCP", ...p })) },
      ),
    );
    const server = await startServer({ cluster });
    const stream = get(server.client, WEB);
    const first = await stream.next();

    // A view as a proxy would hold it after three kinds of mistakes.
    const view = new EndpointView();
    view.apply(first);
    const held = view.endpoints.get("10.244.1.10:8080");
    expect(held).toBeDefined();
    view.apply({ remove: { addrs: [{ ip: { ipv4: 183763211 }, port: 8080 }] } });
    view.apply({
      add: {
        addrs: [
          { addr: { ip: { ipv4: 183763212 }, port: 8080 }, weight: 10000 },
          { addr: { ip: { ipv4: 183763210 }, port: 8080 }, weight: 1 },
        ],
        metricLabels: { namespace: NS, service: "web-svc" },
      },
    });

    const report = await checkConvergence(
      [
        { path: WEB, view },
        { path: WEB, view: viewOf(first) },
      ],
      clusterObjects(cluster),
    );
    expect(report.missing.map((d) => d.address)).toEqual(["10.244.1.11:8080"]);
    expect(report.extra.map((d) => d.address)).toEqual(["10.244.1.12:8080"]);
    expect(
      report.stale.map((d) => [d.address, d.actual?.addr.weight, d.expected?.addr.weight]),
    ).toEqual([["10.244.1.10:8080", 1, 10000]]);
    expect(describeConvergence(report)).toBe(
      `2 streams: 1 missing, 1 extra, 1 stale; missing: ${WEB} 10.244.1.11:8080; extra: ${WEB} 10.244.1.12:8080; stale: ${WEB} 10.244.1.10:8080`,
    );
    stream.cancel();
  });

  it("a stream on a service with no endpoints converges to holding nothing", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(service("empty", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }));
    const report = await checkConvergence(
      [{ path: "empty.emojivoto.svc.cluster.local:80", view: new EndpointView() }],
      clusterObjects(cluster),
    );
    expect(describeConvergence(report)).toBe("1 streams: 0 missing, 0 extra, 0 stale");
  });
});

function viewOf(...messages: Parameters<EndpointView["apply"]>[0][]): EndpointView {
  const view = new EndpointView();
  for (const message of messages) view.apply(message);
  return view;
}
