import type { Container, KubeObject, Pod } from "@destination/core";
import type { parseAllDocuments } from "yaml";
import { describeObject, objectProblem } from "../object-validation.js";
import { RESOURCE_KINDS, type ResourceKind, toObjectMetadata } from "../resource-kind.js";

/** Where in a file an object or problem is: 1-based document number, and item of a List. */
export interface ManifestLocation {
  readonly document: number;
  readonly item?: number;
}

export interface ManifestObject {
  readonly kind: ResourceKind;
  /** Normalised as an API server would store it (see `normaliseObject`). */
  readonly object: KubeObject;
  readonly location: ManifestLocation;
}

export interface ManifestProblem {
  readonly location: ManifestLocation;
  readonly reason: string;
}

/** An object of a kind the destination service does not cache (a Deployment, say). */
export interface IgnoredManifestObject {
  readonly location: ManifestLocation;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

/**
 * One file's content. `status` is `unreadable` when the text does not parse (a syntax error
 * anywhere in it: the file may be half written, so none of it is trusted), `empty` when it holds
 * no document at all, `ok` otherwise; `ok` may still carry problems with single objects, which
 * are skipped.
 */
export interface ParsedManifest {
  readonly status: "ok" | "empty" | "unreadable";
  readonly objects: readonly ManifestObject[];
  readonly ignored: readonly IgnoredManifestObject[];
  readonly problems: readonly ManifestProblem[];
}

/** What the documents of one file add up to, filled in document order. */
interface Collected {
  objects: ManifestObject[];
  ignored: IgnoredManifestObject[];
  problems: ManifestProblem[];
}

/**
 * The YAML reader: the `yaml` package, passed in by whoever imported it, so that importing this
 * package does not load it (README, "Import cost").
 */
export interface YamlReader {
  readonly parseAllDocuments: typeof parseAllDocuments;
}

/** Parses a manifest file: multi-document YAML, or one JSON value; `List` kinds are unpacked. */
export function parseManifest(
  text: string,
  format: "yaml" | "json",
  yaml: YamlReader,
): ParsedManifest {
  const documents = format === "json" ? jsonDocuments(text) : yamlDocuments(text, yaml);
  if ("error" in documents) {
    return { status: "unreadable", objects: [], ignored: [], problems: [documents.error] };
  }
  const result: Collected = { objects: [], ignored: [], problems: [] };
  let present = 0;
  for (const [index, value] of documents.values.entries()) {
    if (value == null) continue;
    present++;
    collect(value, { document: index + 1 }, result);
  }
  return { status: present === 0 ? "empty" : "ok", ...result };
}

function yamlDocuments(
  text: string,
  yaml: YamlReader,
): { values: unknown[] } | { error: ManifestProblem } {
  const docs = yaml.parseAllDocuments(text, { prettyErrors: true, merge: true });
  const values: unknown[] = [];
  for (const [index, doc] of (Array.isArray(docs) ? docs : []).entries()) {
    const location = { document: index + 1 };
    const error = doc.errors[0];
    if (error) return { error: { location, reason: firstLine(error.message) } };
    try {
      values.push(doc.toJS({ maxAliasCount: 1000 }));
    } catch (err) {
      return { error: { location, reason: firstLine(String((err as Error).message ?? err)) } };
    }
  }
  return { values };
}

function jsonDocuments(text: string): { values: unknown[] } | { error: ManifestProblem } {
  if (text.trim() === "") return { values: [] };
  try {
    return { values: [JSON.parse(text)] };
  } catch (err) {
    return { error: { location: { document: 1 }, reason: (err as Error).message } };
  }
}

// yaml's pretty messages add a code excerpt after the first line; the first line has the position.
const firstLine = (message: string) => (message.split("\n")[0] ?? "").replace(/:$/, "");

/** One document: a List is unpacked into its items, anything else is one object. */
function collect(value: unknown, location: ManifestLocation, into: Collected): void {
  const kind = isRecord(value) && typeof value.kind === "string" ? value.kind : "";
  if (isRecord(value) && kind.endsWith("List") && Array.isArray(value.items)) {
    // A typed list (`PodList`) leaves kind and apiVersion off its items, as the API does.
    const itemKind = kind === "List" ? undefined : kind.slice(0, -"List".length);
    for (const [index, item] of value.items.entries()) {
      const itemLocation = { document: location.document, item: index + 1 };
      const withType =
        isRecord(item) && itemKind !== undefined
          ? { apiVersion: value.apiVersion, kind: itemKind, ...item }
          : item;
      if (isRecord(withType) && withType.kind === kind) {
        into.problems.push({ location: itemLocation, reason: "a List inside a List" });
      } else collectObject(withType, itemLocation, into);
    }
    return;
  }
  collectObject(value, location, into);
}

/** One object, or what is wrong with it; a value that is not an object at all is a problem. */
function collectObject(value: unknown, location: ManifestLocation, into: Collected): void {
  if (!isRecord(value)) {
    into.problems.push({ location, reason: "not an object" });
    return;
  }
  const missing: string[] = [];
  const apiVersion = nonEmptyString(value.apiVersion);
  const kind = nonEmptyString(value.kind);
  const metadata = isRecord(value.metadata) ? value.metadata : undefined;
  const name = nonEmptyString(metadata?.name);
  if (apiVersion === undefined) missing.push("apiVersion");
  if (kind === undefined) missing.push("kind");
  if (name === undefined) missing.push("metadata.name");
  if (apiVersion === undefined || kind === undefined || name === undefined || !metadata) {
    into.problems.push({ location, reason: `missing ${missing.join(", ")}` });
    return;
  }
  const cached = cachedKind(apiVersion, kind);
  if (cached === undefined) {
    into.ignored.push({ location, apiVersion, kind, name });
    return;
  }
  // Validated here, where the file and document can be named, rather than in the cache.
  const problem = objectProblem(cached, value);
  if (problem !== undefined) {
    into.problems.push({
      location,
      reason: `invalid ${cached} ${describeObject(value)}: ${problem}`,
    });
    return;
  }
  into.objects.push({
    kind: cached,
    object: normaliseObject(cached, value as unknown as KubeObject),
    location,
  });
}

/**
 * The cached kind an object is, matched by kind and API group; any version of the group is
 * accepted, as an API server converts between the versions a CRD serves. A `Service` of another
 * group (Knative's, say) is not a core Service.
 */
function cachedKind(apiVersion: string, kind: string): ResourceKind | undefined {
  if (!Object.hasOwn(RESOURCE_KINDS, kind)) return undefined;
  const info = RESOURCE_KINDS[kind as ResourceKind];
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return group === info.group ? info.kind : undefined;
}

const CLUSTER_SCOPED: ReadonlySet<ResourceKind> = new Set(["Node"]);

/**
 * What an API server would store for the object, as far as the destination service can tell:
 * namespaced objects without a namespace land in `default` (kubectl's default), cluster-scoped
 * ones lose theirs, metadata-only kinds keep only metadata, and host-network pods get
 * `hostPort = containerPort` where unset (API defaulting the host-port index relies on).
 */
function normaliseObject(kind: ResourceKind, obj: KubeObject): KubeObject {
  const { namespace, ...rest } = obj.metadata;
  const metadata = CLUSTER_SCOPED.has(kind) ? rest : { ...rest, namespace: namespace || "default" };
  const placed = { ...obj, metadata };
  if (RESOURCE_KINDS[kind].metadataOnly) return toObjectMetadata(placed, RESOURCE_KINDS[kind]);
  if (kind === "Pod") return defaultHostPorts(placed as Pod);
  return placed;
}

function defaultHostPorts(pod: Pod): Pod {
  if (!pod.spec?.hostNetwork) return pod;
  const fill = (containers: Container[]) =>
    containers.map((c) =>
      c.ports
        ? {
            ...c,
            ports: c.ports.map((p) => (p.hostPort ? p : { ...p, hostPort: p.containerPort })),
          }
        : c,
    );
  return {
    ...pod,
    spec: {
      ...pod.spec,
      ...(pod.spec.containers ? { containers: fill(pod.spec.containers) } : {}),
      ...(pod.spec.initContainers ? { initContainers: fill(pod.spec.initContainers) } : {}),
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `document 2` or `document 2, item 3`. */
export function describeLocation(location: ManifestLocation): string {
  return location.item === undefined
    ? `document ${location.document}`
    : `document ${location.document}, item ${location.item}`;
}
