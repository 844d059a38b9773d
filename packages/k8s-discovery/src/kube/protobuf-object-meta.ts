import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from "@destination/core";
import { append, type ProtobufReader, setNonEmpty } from "./protobuf-reader.js";

// Field tags below are (field number << 3) | wire type, from k8s.io/apimachinery's
// meta/v1 generated.proto. What comes out is what the JSON of the same object gives once
// projected (see object-projection.ts): Go's JSON leaves out empty strings, zero numbers and
// empty maps and lists where the field is `omitempty`, and writes a zero time as null.

/**
 * ObjectMeta, with `managedFields` cut to the latest `Update` time, as projected, or left out
 * when `updateTime` is false (metadata-only caches keep none).
 */
export function readObjectMeta(r: ProtobufReader, updateTime = true): ObjectMeta {
  const meta = {} as ObjectMeta & Record<string, unknown>;
  let latestUpdate = 0;
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 name
        meta.name = r.string();
        break;
      case 18: // 2 generateName
        setNonEmpty(meta, "generateName", r.string());
        break;
      case 26: // 3 namespace
        setNonEmpty(meta, "namespace", r.string());
        break;
      case 34: // 4 selfLink
        setNonEmpty(meta, "selfLink", r.string());
        break;
      case 42: // 5 uid
        setNonEmpty(meta, "uid", r.string());
        break;
      case 50: // 6 resourceVersion
        setNonEmpty(meta, "resourceVersion", r.string());
        break;
      case 56: {
        // 7 generation
        const generation = r.varint();
        if (generation !== 0) meta.generation = generation;
        break;
      }
      case 66: // 8 creationTimestamp
        meta.creationTimestamp = readTime(r.message()) as string;
        break;
      case 74: // 9 deletionTimestamp (a pointer: present means set)
        meta.deletionTimestamp = readTime(r.message());
        break;
      case 80: // 10 deletionGracePeriodSeconds (a pointer)
        meta.deletionGracePeriodSeconds = r.varint();
        break;
      case 90: // 11 labels
        meta.labels = readMapEntry(r.message(), meta.labels);
        break;
      case 98: // 12 annotations
        meta.annotations = readMapEntry(r.message(), meta.annotations);
        break;
      case 106: // 13 ownerReferences
        meta.ownerReferences = append(meta.ownerReferences, readOwnerReference(r.message()));
        break;
      case 114: // 14 finalizers
        meta.finalizers = append(meta.finalizers as string[] | undefined, r.string());
        break;
      case 138: {
        // 17 managedFields: only the latest Update time is kept
        const updated = readUpdateTime(r.message());
        if (updated > latestUpdate) latestUpdate = updated;
        break;
      }
      default:
        r.skip(tag);
    }
  }
  if (updateTime && latestUpdate > 0) {
    const entry = {} as ManagedFieldsEntry;
    entry.operation = "Update";
    entry.time = formatTime(latestUpdate);
    meta.managedFields = Array.of(entry);
  }
  return meta;
}

/** The metadata of an object whose message has none: a name, empty. */
export function emptyObjectMeta(): ObjectMeta {
  const meta = {} as ObjectMeta;
  meta.name = "";
  return meta;
}

/** Adds a map entry (a message of key 1 and value 2) to `into`, made when absent. */
export function readMapEntry(
  r: ProtobufReader,
  into: Record<string, string> | null | undefined,
): Record<string, string> {
  let key = "";
  let value = "";
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) key = r.string();
    else if (tag === 18) value = r.string();
    else r.skip(tag);
  }
  const map = into ?? {};
  map[key] = value;
  return map;
}

function readOwnerReference(r: ProtobufReader): OwnerReference {
  // apiVersion, kind, name and uid are written even when empty; the two flags are pointers.
  const ref = {} as OwnerReference & Record<string, unknown>;
  ref.apiVersion = "";
  ref.kind = "";
  ref.name = "";
  ref.uid = "";
  while (!r.done) {
    const tag = r.varint();
    switch (tag) {
      case 10: // 1 kind
        ref.kind = r.string();
        break;
      case 26: // 3 name
        ref.name = r.string();
        break;
      case 34: // 4 uid
        ref.uid = r.string();
        break;
      case 42: // 5 apiVersion
        ref.apiVersion = r.string();
        break;
      case 48: // 6 controller
        ref.controller = r.bool();
        break;
      case 56: // 7 blockOwnerDeletion
        ref.blockOwnerDeletion = r.bool();
        break;
      default:
        r.skip(tag);
    }
  }
  return ref;
}

/** The time of a managedFields entry in seconds when its operation is `Update`, else 0. */
function readUpdateTime(r: ProtobufReader): number {
  let update = false;
  let seconds = 0;
  while (!r.done) {
    const tag = r.varint();
    if (tag === 18) update = r.string() === "Update";
    else if (tag === 34) seconds = readSeconds(r.message());
    else r.skip(tag);
  }
  return update ? seconds : 0;
}

/**
 * A meta/v1 Time as its JSON: RFC 3339 in UTC to the second, or null for the zero time. Go
 * writes the zero time as an empty message and reads an empty message back as it, dropping
 * nanoseconds otherwise, so emptiness decides, not the values.
 */
export function readTime(r: ProtobufReader): string | null {
  return r.done ? null : formatTime(readSeconds(r));
}

function readSeconds(r: ProtobufReader): number {
  let seconds = 0;
  while (!r.done) {
    const tag = r.varint();
    if (tag === 8) seconds = r.varint();
    else r.skip(tag);
  }
  return seconds;
}

// Objects written together share their times to the second: the last one formatted is kept.
let lastSeconds = Number.NaN;
let lastFormatted = "";

function formatTime(seconds: number): string {
  if (seconds !== lastSeconds) {
    // `2026-12-01T22:59:38.000Z` without the fraction, which the JSON form drops.
    lastFormatted = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    lastSeconds = seconds;
  }
  return lastFormatted;
}
