import type { Endpoint } from "@destination/core";

/**
 * What makes two endpoints the same one, as upstream's endpoint set hashes them: the sorted
 * addresses, the hostname and the target's namespace and name. Two workloads with one IP are
 * two endpoints.
 */
export function endpointKey(endpoint: Endpoint): string {
  return JSON.stringify([
    [...endpoint.addresses].sort(),
    endpoint.hostname ?? "",
    endpoint.targetRef?.namespace ?? "",
    endpoint.targetRef?.name ?? "",
  ]);
}

/** True when two endpoints of the same key also agree on everything a slice stores of them. */
export function endpointsEqualBeyondKey(a: Endpoint, b: Endpoint): boolean {
  const same = (x: unknown, y: unknown) => (x ?? null) === (y ?? null);
  const ca = a.conditions ?? {};
  const cb = b.conditions ?? {};
  const ra = a.targetRef ?? null;
  const rb = b.targetRef ?? null;
  return (
    same(a.nodeName, b.nodeName) &&
    same(a.zone, b.zone) &&
    same(ca.ready, cb.ready) &&
    same(ca.serving, cb.serving) &&
    same(ca.terminating, cb.terminating) &&
    JSON.stringify(a.hints ?? null) === JSON.stringify(b.hints ?? null) &&
    (ra === null || rb === null
      ? ra === rb
      : same(ra.kind, rb.kind) &&
        same(ra.namespace, rb.namespace) &&
        same(ra.name, rb.name) &&
        same(ra.uid, rb.uid) &&
        same(ra.resourceVersion, rb.resourceVersion))
  );
}
