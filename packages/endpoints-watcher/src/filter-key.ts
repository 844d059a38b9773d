/**
 * What a subscriber's view of a service port depends on: listeners with equal keys share one
 * filtered listener group, its filter and its diff state.
 */
export interface FilterKey {
  /** An instance (StatefulSet pod) name from the authority, or "". */
  readonly hostname: string;
  /** The node of the subscribing proxy, from its context token, or "". */
  readonly nodeName: string;
  /** True for local discovery; remote discovery skips traffic-policy and zone filtering. */
  readonly enableEndpointFiltering: boolean;
}

/** Structural key of a FilterKey, for use in Maps. */
export function filterKeyString(key: FilterKey): string {
  return JSON.stringify([key.hostname, key.nodeName, key.enableEndpointFiltering]);
}
