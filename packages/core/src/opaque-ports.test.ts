import { describe, expect, it } from "vitest";
import type { Pod, Service } from "./objects/core.js";
import type { ExternalWorkload } from "./objects/linkerd.js";
import {
  externalWorkloadOpaquePorts,
  parseDefaultOpaquePorts,
  podOpaquePorts,
  serviceOpaquePorts,
} from "./opaque-ports.js";

const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b);
const ANN = "config.linkerd.io/opaque-ports";
const defaults = new Set([3306]);

describe("opaque ports", () => {
  it("default opaque ports: parses numbers and ranges, skips invalid items, empty means none", () => {
    expect(sorted(parseDefaultOpaquePorts("25,587, 3306,10-12,+7,x,5-4,70000,1-2-3"))).toEqual([
      7, 10, 11, 12, 25, 587, 3306,
    ]);
    expect(sorted(parseDefaultOpaquePorts(""))).toEqual([]);
  });

  it("a pod annotation resolves container port names first, across init containers", () => {
    const pod: Pod = {
      metadata: { name: "p", annotations: { [ANN]: "admin, 123-456,9000-9001," } },
      spec: {
        initContainers: [{ name: "i", ports: [{ name: "admin", containerPort: 1 }] }],
        containers: [
          {
            name: "c",
            ports: [
              { name: "admin", containerPort: 9990 },
              { name: "123-456", containerPort: 4 },
            ],
          },
        ],
      },
    };
    expect(sorted(podOpaquePorts(pod, defaults))).toEqual([4, 9000, 9001, 9990]);
  });

  it("a pod without the annotation gets the defaults, an empty annotation gives nothing", () => {
    expect(sorted(podOpaquePorts({ metadata: { name: "p" } }, defaults))).toEqual([3306]);
    expect(sorted(podOpaquePorts(null, defaults))).toEqual([3306]);
    expect(
      sorted(podOpaquePorts({ metadata: { name: "p", annotations: { [ANN]: "" } } }, defaults)),
    ).toEqual([]);
  });

  it("service names resolve to the service port; an empty item selects an unnamed port, as upstream", () => {
    const svc: Service = {
      metadata: { name: "s", annotations: { [ANN]: "db,," } },
      spec: { ports: [{ name: "db", port: 5432, targetPort: 15432 }, { port: 8080 }] },
    };
    expect(sorted(serviceOpaquePorts(svc, defaults))).toEqual([5432, 8080]);
  });

  it("ExternalWorkload names resolve through spec.ports; an empty item selects an unnamed port, as upstream", () => {
    const ew: ExternalWorkload = {
      metadata: { name: "e", annotations: { [ANN]: " " } },
      spec: { ports: [{ port: 4000 }, { name: "a", port: 5000 }] },
    };
    expect(sorted(externalWorkloadOpaquePorts(ew, defaults))).toEqual([4000]);
  });
});
