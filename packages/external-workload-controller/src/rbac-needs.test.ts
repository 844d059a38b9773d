import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { missingGrants } from "../test/support/rbac-grants.js";
import { RBAC_NEEDS } from "./rbac-needs.js";
import { LEASE_NAME } from "./upstream-constants.js";

// A Linkerd release folder (its `rendered/` charts); the chart's RBAC is checked only with one.
const releaseDir = process.env.LINKERD_RELEASE_DIR;
const ACCOUNT = { namespace: "linkerd", name: "linkerd-destination" };

function manifests(file: string): unknown[] {
  const text = readFileSync(join(releaseDir ?? "", "rendered", file), "utf8");
  return parseAllDocuments(text).map((d) => d.toJS());
}

describe.skipIf(releaseDir === undefined)(
  `Linkerd's chart grants linkerd-destination every request of the controller${releaseDir === undefined ? " (skipped: LINKERD_RELEASE_DIR is not set; it names a Linkerd release folder holding rendered/linkerd-control-plane.yaml)" : ""}`,
  () => {
    it.each(["linkerd-control-plane.yaml", "linkerd-control-plane-ha.yaml"])("%s", (file) => {
      const missing = missingGrants(manifests(file), ACCOUNT, "linkerd", RBAC_NEEDS, LEASE_NAME);
      expect(missing).toEqual([]);
    });
  },
);

describe("missingGrants", () => {
  const role = (rules: object[]) => [
    { kind: "ClusterRole", metadata: { name: "dst" }, rules },
    {
      kind: "ClusterRoleBinding",
      metadata: { name: "dst" },
      roleRef: { kind: "ClusterRole", name: "dst" },
      subjects: [{ kind: "ServiceAccount", ...ACCOUNT }],
    },
  ];

  it("names a verb the chart does not grant", () => {
    const objects = role([
      { apiGroups: [""], resources: ["services"], verbs: ["list", "watch"] },
      {
        apiGroups: ["discovery.k8s.io"],
        resources: ["endpointslices"],
        verbs: ["list", "watch", "create", "update"],
      },
    ]);
    const missing = missingGrants(objects, ACCOUNT, "linkerd", RBAC_NEEDS, LEASE_NAME);
    expect(missing.map((m) => `${m.group}/${m.resource}:${m.verb}`)).toEqual([
      "workload.linkerd.io/externalworkloads:list",
      "workload.linkerd.io/externalworkloads:watch",
      "discovery.k8s.io/endpointslices:delete",
      "coordination.k8s.io/leases:get",
      "coordination.k8s.io/leases:create",
      "coordination.k8s.io/leases:update",
    ]);
  });

  it("takes a Role bound in the controller namespace for the Lease, not for cluster-wide needs", () => {
    const objects = [
      ...role([
        {
          apiGroups: ["", "discovery.k8s.io", "workload.linkerd.io"],
          resources: ["*"],
          verbs: ["*"],
        },
      ]),
      {
        kind: "Role",
        metadata: { name: "lease", namespace: "linkerd" },
        rules: [
          {
            apiGroups: ["coordination.k8s.io"],
            resources: ["leases"],
            verbs: ["get", "create", "update"],
          },
        ],
      },
      {
        kind: "RoleBinding",
        metadata: { name: "lease", namespace: "linkerd" },
        roleRef: { kind: "Role", name: "lease" },
        subjects: [{ kind: "ServiceAccount", ...ACCOUNT }],
      },
    ];
    expect(missingGrants(objects, ACCOUNT, "linkerd", RBAC_NEEDS, LEASE_NAME)).toEqual([]);
    expect(
      missingGrants(objects, ACCOUNT, "other", RBAC_NEEDS, LEASE_NAME).map((m) => m.verb),
    ).toEqual(["get", "create", "update"]);
  });

  it("ignores bindings of other ServiceAccounts", () => {
    const objects = role([{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]);
    const other = { namespace: "linkerd", name: "linkerd-proxy-injector" };
    expect(missingGrants(objects, other, "linkerd", RBAC_NEEDS, LEASE_NAME)).toHaveLength(
      RBAC_NEEDS.length,
    );
  });
});
