/** One permission the controller uses: an API group (`""` is the core group), a resource, a verb. */
export interface RbacNeed {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** Namespaced to the controller namespace (the Lease); cluster-wide otherwise. */
  readonly inControllerNamespace?: boolean;
}

/**
 * Every request the controller makes, beyond what the server's caches already need. Linkerd's
 * chart grants all of them to the `linkerd-destination` ServiceAccount (checked by
 * `rbac-needs.test.ts` against the rendered chart); a request added here must be granted there.
 */
export const RBAC_NEEDS: readonly RbacNeed[] = [
  // The caches it reads.
  { group: "", resource: "services", verb: "list" },
  { group: "", resource: "services", verb: "watch" },
  { group: "workload.linkerd.io", resource: "externalworkloads", verb: "list" },
  { group: "workload.linkerd.io", resource: "externalworkloads", verb: "watch" },
  { group: "discovery.k8s.io", resource: "endpointslices", verb: "list" },
  { group: "discovery.k8s.io", resource: "endpointslices", verb: "watch" },
  // The slices it writes.
  { group: "discovery.k8s.io", resource: "endpointslices", verb: "create" },
  { group: "discovery.k8s.io", resource: "endpointslices", verb: "update" },
  { group: "discovery.k8s.io", resource: "endpointslices", verb: "delete" },
  // The Lease: read, created when missing, renewed and released by update.
  { group: "coordination.k8s.io", resource: "leases", verb: "get", inControllerNamespace: true },
  { group: "coordination.k8s.io", resource: "leases", verb: "create", inControllerNamespace: true },
  { group: "coordination.k8s.io", resource: "leases", verb: "update", inControllerNamespace: true },
];
