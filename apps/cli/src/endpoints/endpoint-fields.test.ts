import { create, ProtocolHintSchema } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { ownerFromLabels, protocolHintText } from "./endpoint-fields.js";

describe("ownerFromLabels", () => {
  it.each([
    [{ pod: "web-1", deployment: "web", serviceaccount: "web", zone: "" }, "deployment/web"],
    [{ pod: "db-0", statefulset: "db", control_plane_ns: "linkerd" }, "statefulset/db"],
    [{ pod: "agent-x", daemonset: "agent" }, "daemonset/agent"],
    [{ pod: "rs-pod", replicaset: "web-5d9f", pod_template_hash: "5d9f" }, "replicaset/web-5d9f"],
    [{ pod: "once-abc", k8s_job: "once" }, "job/once"],
    [{ pod: "nightly-1-abc", cronjob: "nightly" }, "cronjob/nightly"],
    [{ pod: "r-1", rollout: "web" }, "rollout/web"],
    [{ pod: "bare", serviceaccount: "default" }, "pod/bare"],
    [{ external_workload: "vm-1", zone: "" }, "-"],
    [{ external_workload: "vm-1", workloadgroup: "vms" }, "workloadgroup/vms"],
    [{ zone_locality: "unknown" }, "-"],
  ])("%j → %s", (labels, owner) => {
    expect(ownerFromLabels(labels)).toBe(owner);
  });
});

describe("protocolHintText", () => {
  it("renders an absent or empty hint as a dash, and each protocol and transport", () => {
    expect(protocolHintText(undefined)).toBe("-");
    expect(protocolHintText(create(ProtocolHintSchema))).toBe("-");
    expect(
      protocolHintText(create(ProtocolHintSchema, { opaqueTransport: { inboundPort: 4143 } })),
    ).toBe("opaque-transport:4143");
    expect(
      protocolHintText(create(ProtocolHintSchema, { protocol: { case: "opaque", value: {} } })),
    ).toBe("opaque");
  });
});
