/** Why an address a slice lists is not served. */
export type NotServedReason =
  | "unsupported address type"
  | "no matching port"
  | "not ready"
  | "pod missing"
  | "externalworkload missing"
  | "invalid Server selector"
  | "unsupported target kind"
  | "another address of the endpoint is served"
  | "IPv6 disabled"
  | "IPv4 of a dual-stack workload";
