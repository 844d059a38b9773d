// What changed between two sets of Kubernetes manifests, object by object and field by field:
// the measure of "the post-renderer changes one image and nothing else". Text diffs would drown
// in formatting (kustomize rewrites quoting, indentation and comments), so objects are compared
// as data.
import { type KubeObject, parseManifests } from "@destination/k8s-env";

export interface Change {
  /** `Deployment linkerd/linkerd-destination` (kind, then namespace/name or name). */
  readonly object: string;
  /**
   * Where in the object: `spec.template.spec.containers[destination].image`. Lists whose items
   * all have distinct names (containers, volumes, env, ports) are addressed by name.
   */
  readonly path: string;
  /** undefined: the field (or object) is not in the first set. */
  readonly before: unknown;
  /** undefined: the field (or object) is not in the second set. */
  readonly after: unknown;
}

/** Every difference between two multi-document YAML texts, in a stable order. */
export function manifestChanges(before: string, after: string): Change[] {
  const a = byIdentity(parseManifests(before));
  const b = byIdentity(parseManifests(after));
  const changes: Change[] = [];
  for (const id of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    diff(id, "", normalise(a.get(id)), normalise(b.get(id)), changes);
  }
  return changes;
}

function byIdentity(objects: KubeObject[]): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  for (const obj of objects) {
    const ns = obj.metadata.namespace;
    const id = `${obj.kind} ${ns ? `${ns}/` : ""}${obj.metadata.name}`;
    if (out.has(id)) throw new Error(`two objects are ${id}`);
    out.set(id, obj);
  }
  return out;
}

/**
 * A field set to null is dropped: the API server reads `resources: null` as no `resources`, and
 * kustomize's strategic merge drops such fields from the object it patches.
 */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = normalise(v);
    return out;
  }
  return value;
}

function diff(object: string, path: string, a: unknown, b: unknown, out: Change[]): void {
  if (isRecord(a) && isRecord(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      diff(object, path ? `${path}.${key}` : key, a[key], b[key], out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const namesA = itemNames(a);
    const namesB = itemNames(b);
    if (namesA && namesB && namesA.join("\0") === namesB.join("\0")) {
      namesA.forEach((name, i) => {
        diff(object, `${path}[${name}]`, a[i], b[i], out);
      });
      return;
    }
    if (a.length === b.length && !namesA && !namesB) {
      a.forEach((item, i) => {
        diff(object, `${path}[${i}]`, item, b[i], out);
      });
      return;
    }
    // Items added, removed or reordered: the whole list is the change.
  }
  if (!deepEqual(a, b)) out.push({ object, path, before: a, after: b });
}

/** The items' names when every item is an object with a distinct string `name`. */
function itemNames(list: unknown[]): string[] | undefined {
  const names = list.map((item) => (isRecord(item) ? item.name : undefined));
  if (names.length === 0 || names.some((n) => typeof n !== "string")) return undefined;
  return new Set(names).size === names.length ? (names as string[]) : undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
}

/** Key order is YAML formatting, not content. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
