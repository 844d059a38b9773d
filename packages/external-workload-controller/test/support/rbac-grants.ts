// What a set of RBAC manifests grants one ServiceAccount, read the way the API server's
// authorizer reads it: ClusterRoleBindings grant their ClusterRole everywhere, RoleBindings
// grant their Role or ClusterRole in their own namespace only.
import type { RbacNeed } from "../../src/rbac-needs.js";

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface RbacObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: Rule[] | null;
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[] | null;
}

const covers = (values: readonly string[] | undefined, value: string) =>
  (values ?? []).includes(value) || (values ?? []).includes("*");

/** The needs the manifests do not grant the ServiceAccount; the Lease ones in `controllerNamespace`. */
export function missingGrants(
  objects: readonly unknown[],
  account: { namespace: string; name: string },
  controllerNamespace: string,
  needs: readonly RbacNeed[],
  leaseName: string,
): RbacNeed[] {
  const docs = objects.filter((o): o is RbacObject => typeof o === "object" && o !== null);
  const roles = (kind: string, name: string | undefined, namespace?: string) =>
    docs.filter(
      (d) =>
        d.kind === kind &&
        d.metadata?.name === name &&
        (kind === "ClusterRole" || d.metadata?.namespace === namespace),
    );
  const bindsAccount = (d: RbacObject) =>
    (d.subjects ?? []).some(
      (s) =>
        s.kind === "ServiceAccount" && s.name === account.name && s.namespace === account.namespace,
    );
  const clusterWide: Rule[] = [];
  const inNamespace = new Map<string, Rule[]>();
  for (const binding of docs.filter(bindsAccount)) {
    const ref = binding.roleRef ?? {};
    if (binding.kind === "ClusterRoleBinding" && ref.kind === "ClusterRole") {
      for (const role of roles("ClusterRole", ref.name)) clusterWide.push(...(role.rules ?? []));
    } else if (binding.kind === "RoleBinding") {
      const namespace = binding.metadata?.namespace ?? "";
      const rules = inNamespace.get(namespace) ?? [];
      for (const role of roles(ref.kind ?? "", ref.name, namespace))
        rules.push(...(role.rules ?? []));
      inNamespace.set(namespace, rules);
    }
  }
  const grants = (rules: readonly Rule[], need: RbacNeed) =>
    rules.some(
      (r) =>
        covers(r.apiGroups, need.group) &&
        covers(r.resources, need.resource) &&
        covers(r.verbs, need.verb) &&
        // A rule limited by name grants a named request only: the Lease's, never a create.
        ((r.resourceNames ?? []).length === 0 ||
          (need.inControllerNamespace === true &&
            need.verb !== "create" &&
            covers(r.resourceNames, leaseName))),
    );
  return needs.filter(
    (need) =>
      !grants(clusterWide, need) &&
      !(
        need.inControllerNamespace === true &&
        grants(inNamespace.get(controllerNamespace) ?? [], need)
      ),
  );
}
