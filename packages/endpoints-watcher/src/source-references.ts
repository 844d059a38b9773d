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
  readonly #bySource = new Map<string, Recorded>();
  /**
   * Readers by kind, namespace and name. Nested maps keyed by the objects' own strings: a
   * conversion notes every pod it lists, and building a joined key per note showed in profiles
   * of cold subscriptions.
   */
  readonly #byReference = new Map<ReferencedKind, Map<string, Map<string, Reference>>>();
  #referenceCount = 0;

  /** A recorder bound to one source, handed to its conversion. */
  recorder(source: AddressSource): NoteReference {
    const sourceKey = keyOfSource(source);
    let recorded: Recorded | undefined;
    // A slice's pods mostly share one owner, noted once per pod: a repeat of the last reference
    // of its kind is skipped.
    let last: Partial<Record<ReferencedKind, Reference>> = {};
    return (kind, namespace, name) => {
      if (recorded?.forgotten !== false) {
        recorded = this.#bySource.get(sourceKey);
        if (recorded === undefined) {
          recorded = { source, refs: [], forgotten: false };
          this.#bySource.set(sourceKey, recorded);
        }
        last = {};
      }
      const previous = last[kind];
      if (previous !== undefined && previous.name === name && previous.namespace === namespace) {
        return;
      }
      const ref = this.#reference(kind, namespace, name);
      last[kind] = ref;
      if (!addReader(ref, recorded)) return;
      recorded.refs.push(ref);
    };
  }

  /** Drops what a source had recorded (it changed, went, or is about to be converted again). */
  forget(source: AddressSource): void {
    const sourceKey = keyOfSource(source);
    const recorded = this.#bySource.get(sourceKey);
    if (recorded === undefined) return;
    this.#bySource.delete(sourceKey);
    recorded.forgotten = true;
    for (const ref of recorded.refs) {
      if (!deleteReader(ref, recorded)) continue;
      const byNamespace = this.#byReference.get(ref.kind);
      const byName = byNamespace?.get(ref.namespace);
      if (byName?.get(ref.name) !== ref) continue;
      byName.delete(ref.name);
      this.#referenceCount--;
      if (byName.size === 0) byNamespace?.delete(ref.namespace);
    }
  }

  /** The sources whose last conversion read this object, found or not. */
  sourcesReading(kind: ReferencedKind, namespace: string, name: string): AddressSource[] {
    const ref = this.#byReference.get(kind)?.get(namespace)?.get(name);
    if (ref === undefined) return [];
    const readers = ref.readers;
    if (readers instanceof Set) return [...readers].map((recorded) => recorded.source);
    return readers === undefined ? [] : [readers.source];
  }

  /** Whether any source's last conversion read this object: a cheap test for every event. */
  isRead(kind: ReferencedKind, namespace: string, name: string): boolean {
    return this.#byReference.get(kind)?.get(namespace)?.has(name) ?? false;
  }

  /** Objects read by at least one source: what this index costs. */
  get referenceCount(): number {
    return this.#referenceCount;
  }

  #reference(kind: ReferencedKind, namespace: string, name: string): Reference {
    let byNamespace = this.#byReference.get(kind);
    if (byNamespace === undefined) {
      byNamespace = new Map();
      this.#byReference.set(kind, byNamespace);
    }
    let byName = byNamespace.get(namespace);
    if (byName === undefined) {
      byName = new Map();
      byNamespace.set(namespace, byName);
    }
    let ref = byName.get(name);
    if (ref === undefined) {
      ref = { kind, namespace, name, readers: undefined };
      byName.set(name, ref);
      this.#referenceCount++;
    }
    return ref;
  }
}

/**
 * One object some sources read, and those sources. Most objects are read by one source: it is
 * held as is, and a Set only once a second one reads it (a cold subscription notes thousands).
 */
interface Reference {
  readonly kind: ReferencedKind;
  readonly namespace: string;
  readonly name: string;
  readers: Recorded | Set<Recorded> | undefined;
}

/** Adds a reader; false when it was one already. */
function addReader(ref: Reference, reader: Recorded): boolean {
  const readers = ref.readers;
  if (readers === undefined) ref.readers = reader;
  else if (readers instanceof Set) {
    if (readers.has(reader)) return false;
    readers.add(reader);
  } else if (readers === reader) return false;
  else ref.readers = new Set([readers, reader]);
  return true;
}

/** Removes a reader; true when none is left. */
function deleteReader(ref: Reference, reader: Recorded): boolean {
  const readers = ref.readers;
  if (readers instanceof Set) {
    readers.delete(reader);
    return readers.size === 0;
  }
  if (readers === reader) ref.readers = undefined;
  return ref.readers === undefined;
}

/** What one source read, so that forgetting it finds every reference without a search. */
interface Recorded {
  readonly source: AddressSource;
  readonly refs: Reference[];
  /** Set by `forget`, so that a recorder created before it records into a fresh entry. */
  forgotten: boolean;
}

function keyOfSource(source: AddressSource): string {
  return `${source.kind}/${objectKey(source.namespace, source.name)}`;
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
