// The example of README.md, run as a test so it cannot rot. Keep the two in step.

import { parseDefaultOpaquePorts, type Service, type ServiceProfile } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { expect, it } from "vitest";
import { OpaquePortsWatcher, ProfileWatcher } from "./index.js";

it("runs the README example", async () => {
  const printed: string[] = [];
  const print = (line: string) => printed.push(line);

  // --- README example ---
  const cluster = new MemoryCluster();
  const profiles = new ProfileWatcher(cluster);
  const opaquePorts = new OpaquePortsWatcher(cluster, {
    defaultOpaquePorts: parseDefaultOpaquePorts("3306,5432"),
  });
  await cluster.start();

  const web: Service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      namespace: "emojivoto",
      annotations: { "config.linkerd.io/opaque-ports": "grpc" },
    },
    spec: { ports: [{ name: "grpc", port: 8080, targetPort: 18080 }] },
  };
  cluster.apply(web);

  const fqdn = "web.emojivoto.svc.cluster.local";
  const profileListener = {
    update(profile: ServiceProfile | null) {
      print(`profile ${profile === null ? "none" : `${profile.spec?.routes?.length} routes`}`);
    },
  };
  const portsListener = {
    updateService(ports: ReadonlySet<number>) {
      print(`opaque ports ${[...ports].join(",")}`);
    },
  };
  profiles.subscribe({ namespace: "emojivoto", name: fqdn }, profileListener);
  opaquePorts.subscribe({ namespace: "emojivoto", name: "web" }, portsListener);

  const profile: ServiceProfile = {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { name: fqdn, namespace: "emojivoto" },
    spec: { routes: [{ name: "GET /", condition: { method: "GET", pathRegex: "/" } }] },
  };
  cluster.apply(profile);
  cluster.delete("Service", "emojivoto", "web");
  cluster.delete("ServiceProfile", "emojivoto", fqdn);

  profiles.unsubscribe({ namespace: "emojivoto", name: fqdn }, profileListener);
  opaquePorts.unsubscribe({ namespace: "emojivoto", name: "web" }, portsListener);
  profiles.stop();
  opaquePorts.stop();
  // --- end ---

  expect(printed).toEqual([
    "profile none",
    "opaque ports 8080",
    "profile 1 routes",
    "opaque ports 3306,5432",
    "profile none",
  ]);
});
