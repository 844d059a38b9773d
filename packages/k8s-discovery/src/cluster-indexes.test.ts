import type { Pod, Service } from "@destination/core";
import { describe, expect, it } from "vitest";
import {
  externalWorkloadIpIndex,
  podHostPortIndex,
  podIpIndex,
  serviceClusterIpIndex,
  sliceServiceIndex,
} from "./cluster-indexes.js";

const pod = (spec: Pod["spec"], status: Pod["status"]): Pod => ({
  metadata: { name: "p", namespace: "shop" },
  spec,
  status,
});

describe("index keys", () => {
  it("files a pod under each pod IP, or podIP alone when podIPs is empty", () => {
    expect(
      podIpIndex.keys(
        pod({}, { podIP: "10.0.0.1", podIPs: [{ ip: "10.0.0.1" }, { ip: "2001:DB8::1" }] }),
      ),
    ).toEqual(["10.0.0.1", "2001:db8::1"]);
    expect(podIpIndex.keys(pod({}, { podIP: "10.0.0.1", podIPs: [] }))).toEqual(["10.0.0.1"]);
    expect(podIpIndex.keys(pod({}, {}))).toEqual([]);
  });

  it("leaves host-network pods out of the IP index (their IP is the node's)", () => {
    expect(podIpIndex.keys(pod({ hostNetwork: true }, { podIP: "172.18.0.2" }))).toEqual([]);
  });

  it("files host ports of init and regular containers under every host IP", () => {
    const keys = podHostPortIndex.keys(
      pod(
        {
          initContainers: [{ name: "init", ports: [{ containerPort: 53, hostPort: 5353 }] }],
          containers: [
            {
              name: "app",
              ports: [{ containerPort: 80 }, { containerPort: 8080, hostPort: 18080 }],
            },
          ],
        },
        { hostIP: "172.18.0.2", hostIPs: [{ ip: "172.18.0.2" }, { ip: "fd00::2" }] },
      ),
    );
    expect(keys).toEqual([
      "172.18.0.2:5353",
      "[fd00::2]:5353",
      "172.18.0.2:18080",
      "[fd00::2]:18080",
    ]);
  });

  it("falls back to hostIP, and has no keys without a host IP", () => {
    const spec = { containers: [{ name: "app", ports: [{ containerPort: 80, hostPort: 80 }] }] };
    expect(podHostPortIndex.keys(pod(spec, { hostIP: "172.18.0.3" }))).toEqual(["172.18.0.3:80"]);
    expect(podHostPortIndex.keys(pod(spec, {}))).toEqual([]);
  });

  it("files a service under clusterIPs, else clusterIP", () => {
    const svc = (spec: Service["spec"]): Service => ({
      metadata: { name: "s", namespace: "shop" },
      spec,
    });
    expect(
      serviceClusterIpIndex.keys(
        svc({ clusterIP: "10.96.0.1", clusterIPs: ["10.96.0.1", "fd00::1"] }),
      ),
    ).toEqual(["10.96.0.1", "fd00::1"]);
    expect(serviceClusterIpIndex.keys(svc({ clusterIP: "10.96.0.1", clusterIPs: [] }))).toEqual([
      "10.96.0.1",
    ]);
    expect(serviceClusterIpIndex.keys(svc({}))).toEqual([]);
  });

  it("files a slice under its service-name label only; an unlabelled slice has no key", () => {
    const slice = (labels?: Record<string, string>) => ({
      metadata: { name: "web-x", namespace: "shop", ...(labels ? { labels } : {}) },
      addressType: "IPv4",
    });
    expect(sliceServiceIndex.keys(slice({ "kubernetes.io/service-name": "web" }))).toEqual([
      "shop/web",
    ]);
    expect(sliceServiceIndex.keys(slice())).toEqual([]);
  });

  it("files an ExternalWorkload under every IP and port pair", () => {
    const keys = externalWorkloadIpIndex.keys({
      metadata: { name: "vm", namespace: "shop" },
      spec: {
        workloadIPs: [{ ip: "192.168.1.5" }, { ip: "fd00::5" }],
        ports: [{ port: 80 }, { port: 443 }],
      },
    });
    expect(keys).toEqual(["192.168.1.5:80", "192.168.1.5:443", "[fd00::5]:80", "[fd00::5]:443"]);
  });
});
