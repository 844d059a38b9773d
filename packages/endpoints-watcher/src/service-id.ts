/** A Service by namespace and name: the first part of a subscription key. */
export interface ServiceId {
  readonly namespace: string;
  readonly name: string;
}

export function serviceIdKey(id: ServiceId): string {
  return `${id.namespace}/${id.name}`;
}
