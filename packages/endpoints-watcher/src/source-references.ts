import type { KubeObject, Pod } from "@destination/core";
import { objectKey } from "@destination/k8s-discovery";

/** Kinds an address is built from besides the slice or Endpoints object that lists it. */
export type ReferencedKind = "Pod" | "ExternalWorkload" | "ReplicaSet" | "Job";

/** Where addresses come from: an EndpointSlice, or the Endpoints object of a service. */
export interface AddressSource {
  readonly kind: "EndpointSlice" | "Endpoints";
  readonly namespace: string;
  readonly name: string;
}

/** The source a slice or Endpoints object is. */
export function sourceOf(kind: AddressSource["kind"], obj: KubeObject): AddressSource {
  return { kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name };
}

/** Records, for one source being converted, an object its addresses depend on. */
export type NoteReference = (kind: ReferencedKind, namespace: string, name: string) => void;

/**
 * Which sources read which objects the last time they were converted, found or not. When such
 * an object arrives or changes later, the sources that read it are converted again, so the
 * result never depends on which of the two the cache heard of first (a slice that lists a pod
 * before the pod itself is cached, a ReplicaSet cached after its pods).
 *
 * A source's references are forgotten when it changes or goes; its next conversion records
 * them again. Only converted sources are recorded, so this holds references of subscribed
 * services alone.
 */
export class SourceReferences {
  readonly #bySource = new Map<string, { source: AddressSource; refs: Set<string> }>();
  readonly #byReference = new Map<string, Set<string>>();

  /** A recorder bound to one source, handed to its conversion. */
  recorder(source: AddressSource): NoteReference {
    const sourceKey = keyOfSource(source);
    return (kind, namespace, name) => {
      let entry = this.#bySource.get(sourceKey);
      if (entry === undefined) {
        entry = { source, refs: new Set() };
        this.#bySource.set(sourceKey, entry);
      }
      const ref = referenceKey(kind, namespace, name);
      entry.refs.add(ref);
      let sources = this.#byReference.get(ref);
      if (sources === undefined) {
        sources = new Set();
        this.#byReference.set(ref, sources);
      }
      sources.add(sourceKey);
    };
  }

  /** Drops what a source had recorded (it changed, went, or is about to be converted again). */
  forget(source: AddressSource): void {
    const sourceKey = keyOfSource(source);
    const entry = this.#bySource.get(sourceKey);
    if (entry === undefined) return;
    this.#bySource.delete(sourceKey);
    for (const ref of entry.refs) {
      const sources = this.#byReference.get(ref);
      sources?.delete(sourceKey);
      if (sources?.size === 0) this.#byReference.delete(ref);
    }
  }

  /** The sources whose last conversion read this object, found or not. */
  sourcesReading(kind: ReferencedKind, namespace: string, name: string): AddressSource[] {
    const sources = this.#byReference.get(referenceKey(kind, namespace, name));
    if (sources === undefined) return [];
    const found: AddressSource[] = [];
    for (const key of sources) {
      const entry = this.#bySource.get(key);
      if (entry !== undefined) found.push(entry.source);
    }
    return found;
  }

  /** Whether any source's last conversion read this object: a cheap test for every event. */
  isRead(kind: ReferencedKind, namespace: string, name: string): boolean {
    return this.#byReference.has(referenceKey(kind, namespace, name));
  }

  /** Objects read by at least one source: what this index costs. */
  get referenceCount(): number {
    return this.#byReference.size;
  }
}

function keyOfSource(source: AddressSource): string {
  return `${source.kind}/${objectKey(source.namespace, source.name)}`;
}

function referenceKey(kind: ReferencedKind, namespace: string, name: string): string {
  return `${kind}/${objectKey(namespace, name)}`;
}

/**
 * Records a pod reference and, when the pod is cached, the ReplicaSet or Job its owner is read
 * from: the owner labels depend on that object being cached too.
 */
export function notePod(
  note: NoteReference,
  namespace: string,
  name: string,
  pod: Pod | undefined,
): void {
  note("Pod", namespace, name);
  const refs = pod?.metadata.ownerReferences ?? [];
  const parent = refs.length === 1 ? refs[0] : undefined;
  if (parent?.kind === "ReplicaSet" || parent?.kind === "Job") {
    note(parent.kind, namespace, parent.name);
  }
}
