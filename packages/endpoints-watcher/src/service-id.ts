/** A Service by namespace and name: the first part of a subscription key (watchers.md §3.2). */
export interface ServiceId {
  readonly namespace: string;
  readonly name: string;
}

export function serviceIdKey(id: ServiceId): string {
  return `${id.namespace}/${id.name}`;
}
