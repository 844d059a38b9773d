import type { LabelSelector, Pod, Server } from "@destination/core";

/**
 * The pod labels an address reads (README "Pod metric labels" of @destination/translators):
 * the control plane's namespace (meshed or not, and the identity) and the pod-template hash.
 * Server selectors read others; those are asked of the Servers themselves.
 */
const ADDRESS_LABELS: ReadonlySet<string> = new Set([
  "linkerd.io/control-plane-ns",
  "pod-template-hash",
]);

/**
 * Whether a cached pod changed in a way its addresses show: a new pod under the same name, new
 * annotations or owner, or a new value of a label something reads (`ADDRESS_LABELS`, or a key
 * a Server of the pod's namespace selects on). Status-only updates and edits of labels nothing
 * reads (the bulk of pod traffic) reach the endpoints through their slice, as upstream has it.
 * `servers` is asked only when such a label edit needs it.
 */
export function podChangedForAddresses(
  old: Pod,
  pod: Pod,
  servers: () => readonly Server[],
): boolean {
  const a = old.metadata;
  const b = pod.metadata;
  if (
    a.uid !== b.uid ||
    !sameJson(a.annotations, b.annotations) ||
    !sameJson(a.ownerReferences, b.ownerReferences)
  ) {
    return true;
  }
  const changed = changedKeys(a.labels ?? {}, b.labels ?? {});
  if (changed.length === 0) return false;
  if (changed.some((key) => ADDRESS_LABELS.has(key))) return true;
  return servers().some((server) => selectsOn(server.spec?.podSelector, changed));
}

/** Keys whose values differ, added and removed ones included. */
function changedKeys(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) {
  const keys: string[] = [];
  for (const key in a) if (a[key] !== b[key]) keys.push(key);
  for (const key in b) if (!(key in a)) keys.push(key);
  return keys;
}

/** Whether a selector's result can depend on one of `keys`. */
function selectsOn(selector: LabelSelector | null | undefined, keys: readonly string[]): boolean {
  if (selector == null) return false;
  const labels = selector.matchLabels ?? {};
  return keys.some(
    (key) =>
      Object.hasOwn(labels, key) || (selector.matchExpressions ?? []).some((e) => e.key === key),
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
