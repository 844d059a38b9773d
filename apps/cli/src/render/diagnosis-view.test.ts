import { describe, expect, it } from "vitest";
import type { EndpointsReportView, SliceView } from "../diagnose/admin-endpoints.js";
import { formatDiagnosis } from "./diagnosis-view.js";
import { colorStyles, plainStyles } from "./styles.js";

const ASKED = { namespace: "shop", name: "web", port: 80 };

const pod = (name: string, node: string) => ({
  name,
  phase: "Running",
  node,
  owner: { kind: "deployment", name: "web" },
});

const slice: SliceView = {
  name: "web-abc",
  addressType: "IPv4",
  ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  servesPorts: [{ servicePort: 80, port: 8080 }],
  endpoints: [
    {
      addresses: [{ address: "10.1.0.1", pod: pod("web-0", "node-a"), served: true, reason: null }],
      targetRef: { kind: "Pod", namespace: "shop", name: "web-0" },
      nodeName: "node-a",
      zone: "zone-a",
      hints: { forZones: ["zone-a"] },
    },
    {
      addresses: [
        { address: "10.1.0.2", pod: pod("web-1", "node-b"), served: false, reason: "not ready" },
      ],
      targetRef: { kind: "Pod", namespace: "shop", name: "web-1" },
      nodeName: "node-b",
      zone: null,
      hints: null,
    },
    {
      addresses: [{ address: "10.1.0.3", pod: null, served: false, reason: "pod missing" }],
      targetRef: { kind: "Pod", namespace: "shop", name: "web-gone" },
      nodeName: null,
      zone: null,
      hints: null,
    },
  ],
};

const report: EndpointsReportView = {
  service: {
    namespace: "shop",
    name: "web",
    type: "ClusterIP",
    clusterIPs: ["10.96.0.10"],
    internalTrafficPolicy: null,
    ports: [
      { name: "http", port: 80, targetPort: "http", protocol: "TCP" },
      { name: "admin", port: 9000, targetPort: 9000, protocol: "TCP" },
    ],
  },
  endpointSlices: [slice],
  subscribers: { total: 2, ports: [{ port: 80, subscribers: 2 }] },
  notes: ["topology: endpoints carry zone hints"],
};

describe("formatDiagnosis", () => {
  it("shows the Service, each address with its pod and verdict, a summary and the notes", () => {
    expect(formatDiagnosis(report, ASKED, plainStyles)).toBe(
      [
        "service      shop/web",
        "type         ClusterIP",
        "cluster IPs  10.96.0.10",
        "ports        80/TCP (http) → http, 9000/TCP (admin) → 9000",
        "asked port   80",
        "subscribers  2 Get streams (port 80: 2)",
        "",
        "EndpointSlice web-abc  IPv4  ports http=8080  serves 80 → 8080",
        "  ADDRESS   POD       PHASE    NODE    OWNER           ZONE    HINTS   SERVED ON 80",
        "  10.1.0.1  web-0     Running  node-a  deployment/web  zone-a  zone-a  yes",
        "  10.1.0.2  web-1     Running  node-b  deployment/web  -       -       no: not ready",
        "  10.1.0.3  web-gone  -        -       -               -       -       no: pod missing",
        "",
        "1 of 3 listed addresses served on port 80",
        "notes:",
        "  - topology: endpoints carry zone hints",
        "",
      ].join("\n"),
    );
  });

  it("says a slice does not serve the asked port", () => {
    const text = formatDiagnosis(report, { ...ASKED, port: 9000 }, plainStyles);
    expect(text).toContain(
      "10.1.0.1  web-0     Running  node-a  deployment/web  zone-a  zone-a  no: no matching port",
    );
    expect(text).toContain("0 of 3 listed addresses served on port 9000");
  });

  it("says when the Service is not cached or has no slices", () => {
    const text = formatDiagnosis(
      { service: null, endpointSlices: [], subscribers: null, notes: [] },
      ASKED,
      plainStyles,
    );
    expect(text).toBe(
      [
        "service      shop/web (not in the cache)",
        "subscribers  unknown",
        "",
        "(no EndpointSlices for this Service)",
        "",
        "0 of 0 listed addresses served on port 80",
        "",
      ].join("\n"),
    );
  });

  it("colors verdicts on a terminal", () => {
    const text = formatDiagnosis(report, ASKED, colorStyles);
    expect(text).toContain("\x1b[32myes\x1b[39m");
    expect(text).toContain("\x1b[31mno: not ready\x1b[39m");
  });
});
