import { isFieldSet } from "@bufbuild/protobuf";
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from "@destination/core";
import {
  type ObjectMeta as ObjectMetaMessage,
  ObjectMetaSchema,
  type OwnerReference as OwnerReferenceMessage,
  OwnerReferenceSchema,
  type Time,
  TimeSchema,
} from "../gen/k8s/meta/v1/meta_pb.js";

// meta/v1 messages (decoded with the schemas of proto/) as the JSON of the same object gives
// them once projected (see object-schemas.ts): Go's JSON leaves out empty strings, zero
// numbers and empty maps and lists where the field is `omitempty`, writes a pointer field
// exactly when it is set (protobuf presence says which) and a zero time as null. Objects start
// as `{}` and are filled field by field, and lists and maps decoded are kept as they are.

/**
 * ObjectMeta, with `managedFields` cut to the latest `Update` time, as projected, or left out
 * when `updateTime` is false (metadata-only caches keep none).
 */
export function projectObjectMeta(m: ObjectMetaMessage, updateTime = true): ObjectMeta {
  const meta = {} as ObjectMeta & Record<string, unknown>;
  if (isFieldSet(m, ObjectMetaSchema.field.name)) meta.name = m.name;
  if (m.generateName !== "") meta.generateName = shared(m.generateName);
  if (m.namespace !== "") meta.namespace = shared(m.namespace);
  if (m.selfLink !== "") meta.selfLink = m.selfLink;
  if (m.uid !== "") meta.uid = m.uid;
  if (m.resourceVersion !== "") meta.resourceVersion = m.resourceVersion;
  // int64 values come as bigint; what the JSON gives is a number.
  if (m.generation !== 0n) meta.generation = Number(m.generation);
  if (m.creationTimestamp !== undefined) {
    meta.creationTimestamp = projectTime(m.creationTimestamp) as string;
  }
  // Pointers: present means set.
  if (m.deletionTimestamp !== undefined) meta.deletionTimestamp = projectTime(m.deletionTimestamp);
  if (isFieldSet(m, ObjectMetaSchema.field.deletionGracePeriodSeconds)) {
    meta.deletionGracePeriodSeconds = Number(m.deletionGracePeriodSeconds);
  }
  if (hasEntries(m.labels)) meta.labels = shareValues(m.labels);
  if (hasEntries(m.annotations)) meta.annotations = m.annotations;
  if (m.ownerReferences.length > 0) {
    meta.ownerReferences = m.ownerReferences.map(projectOwnerReference);
  }
  if (m.finalizers.length > 0) meta.finalizers = m.finalizers.map(shared);
  if (updateTime) {
    const latest = latestUpdateSeconds(m);
    if (latest > 0) {
      const entry = {} as ManagedFieldsEntry;
      entry.operation = "Update";
      entry.time = formatTime(latest);
      meta.managedFields = Array.of(entry);
    }
  }
  return meta;
}

/** The metadata of an object whose message has none: a name, empty. */
export function emptyObjectMeta(): ObjectMeta {
  const meta = {} as ObjectMeta;
  meta.name = "";
  return meta;
}

/** True when a decoded map has an entry. */
export function hasEntries(map: Record<string, string>): boolean {
  for (const _ in map) return true;
  return false;
}

function projectOwnerReference(m: OwnerReferenceMessage): OwnerReference {
  // apiVersion, kind, name and uid are written even when empty; the two flags are pointers.
  const ref = {} as OwnerReference & Record<string, unknown>;
  ref.apiVersion = shared(m.apiVersion);
  ref.kind = shared(m.kind);
  ref.name = shared(m.name);
  ref.uid = m.uid;
  if (isFieldSet(m, OwnerReferenceSchema.field.controller)) ref.controller = m.controller;
  if (isFieldSet(m, OwnerReferenceSchema.field.blockOwnerDeletion)) {
    ref.blockOwnerDeletion = m.blockOwnerDeletion;
  }
  return ref;
}

/** The latest time, in seconds, of the managedFields entries whose operation is `Update`. */
function latestUpdateSeconds(m: ObjectMetaMessage): number {
  let latest = 0;
  for (const entry of m.managedFields) {
    if (entry.operation !== "Update" || entry.time === undefined) continue;
    const seconds = Number(entry.time.seconds);
    if (seconds > latest) latest = seconds;
  }
  return latest;
}

/**
 * A meta/v1 Time as its JSON: RFC 3339 in UTC to the second, or null for the zero time. Go
 * writes the zero time as an empty message and reads an empty message back as it, dropping
 * nanoseconds otherwise, so emptiness decides, not the values.
 */
export function projectTime(t: Time): string | null {
  const empty = !isFieldSet(t, TimeSchema.field.seconds) && !isFieldSet(t, TimeSchema.field.nanos);
  return empty ? null : formatTime(Number(t.seconds));
}

// Objects are written at a few distinct seconds (a pod's creation and its latest update, the
// same for its neighbours), so times are formatted once each and shared. Bounded: cleared when
// full.
const formattedTimes = new Map<number, string>();
const FORMATTED_TIMES_MAX = 1024;

function formatTime(seconds: number): string {
  let formatted = formattedTimes.get(seconds);
  if (formatted === undefined) {
    if (formattedTimes.size >= FORMATTED_TIMES_MAX) formattedTimes.clear();
    // `2026-12-01T22:59:38.000Z` without the fraction, which the JSON form drops.
    formatted = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    formattedTimes.set(seconds, formatted);
  }
  return formatted;
}

/**
 * One copy of the short strings that repeat from object to object (label values, namespaces,
 * owners, container and env names, node names): the decoder gives every object strings of its
 * own, and the store would keep thousands of copies of each. A string seen recently comes back
 * as the copy kept for it, so the decoded one dies young. Keys of decoded maps need none of
 * this: V8 keeps one copy of every property name.
 */
export function shared(text: string): string {
  if (text.length > MAX_SHARED_LENGTH) return text;
  const kept = RECENT.get(text);
  if (kept !== undefined) return kept;
  // Bounded: emptied when full, so that what repeats now is what is kept.
  if (RECENT.size === MAX_SHARED_STRINGS) RECENT.clear();
  RECENT.set(text, text);
  return text;
}

/** Makes the values of a decoded map shared copies, in place. */
export function shareValues(map: Record<string, string>): Record<string, string> {
  for (const key in map) map[key] = shared(map[key] as string);
  return map;
}

const MAX_SHARED_LENGTH = 64;
const MAX_SHARED_STRINGS = 4096;
const RECENT = new Map<string, string>();
