/**
 * A namespaced object by namespace and name, Kubernetes's `NamespacedName`: the one key type for
 * Services, ServiceProfiles (whose name is a Service's FQDN) and any other namespaced object.
 */
export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

/** `namespace/name`: a map key for a `NamespacedName`. */
export function namespacedNameKey(id: NamespacedName): string {
  return `${id.namespace}/${id.name}`;
}
