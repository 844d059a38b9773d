// Structural comparison of FileDescriptorProtos, used by @destination/proto's schema conformance
// test. Both sides go through proto JSON so that every descriptor field (numbers,
// types, labels, type names, oneofs, proto3_optional, map entries, reserved ranges and names,
// enum values, methods, options) is compared without listing them by hand; only comments
// (source_code_info) are dropped.
import { clone, type JsonObject, type JsonValue, toJson } from "@bufbuild/protobuf";
import { type FileDescriptorProto, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

export interface DiffOptions {
  /** Skip file-level options (go_package and friends). Used for google/protobuf/duration.proto
   * from @bufbuild/protobuf/wkt, which carries today's Google options rather than those of the
   * copy vendored upstream. */
  ignoreFileOptions?: boolean;
}

/** Readable names for repeated descriptor fields whose elements have a `name`. */
const LABELS: Record<string, string> = {
  messageType: "message",
  nestedType: "message",
  enumType: "enum",
  field: "field",
  extension: "extension",
  oneofDecl: "oneof",
  value: "value",
  service: "service",
  method: "method",
};

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Replaces each field's `oneofIndex` with the oneof's name, so that oneof membership reads
 * (and compares) by name rather than by position. */
function nameOneofs(message: JsonObject): void {
  const decls = Array.isArray(message.oneofDecl) ? message.oneofDecl : [];
  for (const field of Array.isArray(message.field) ? message.field : []) {
    if (isObject(field) && typeof field.oneofIndex === "number") {
      const decl = decls[field.oneofIndex];
      field.oneof = isObject(decl) ? (decl.name ?? null) : `#${field.oneofIndex}`;
      delete field.oneofIndex;
    }
  }
  for (const nested of Array.isArray(message.nestedType) ? message.nestedType : []) {
    if (isObject(nested)) nameOneofs(nested);
  }
}

function normalize(file: FileDescriptorProto, opts: DiffOptions): JsonObject {
  const copy = clone(FileDescriptorProtoSchema, file);
  copy.sourceCodeInfo = undefined;
  if (opts.ignoreFileOptions) copy.options = undefined;
  const json = toJson(FileDescriptorProtoSchema, copy) as JsonObject;
  for (const m of Array.isArray(json.messageType) ? json.messageType : []) {
    if (isObject(m)) nameOneofs(m);
  }
  return json;
}

const show = (v: JsonValue | undefined) => (v === undefined ? "(unset)" : JSON.stringify(v));

function namesOf(items: JsonValue[]): string[] | undefined {
  const names = items.map((i) => (isObject(i) && typeof i.name === "string" ? i.name : undefined));
  return names.every((n): n is string => n !== undefined) ? names : undefined;
}

function diffValue(
  path: string,
  key: string,
  up: JsonValue | undefined,
  ours: JsonValue | undefined,
  out: string[],
): void {
  if (Array.isArray(up) && Array.isArray(ours)) {
    const upNames = namesOf(up);
    const ourNames = namesOf(ours);
    if (upNames && ourNames) {
      // Named elements: match by name so that a report says which one differs.
      const label = LABELS[key] ?? key;
      for (const [i, name] of upNames.entries()) {
        const j = ourNames.indexOf(name);
        const at = `${path} > ${label} ${name}`;
        if (j === -1) out.push(`${at}: missing in ours`);
        else diffValue(at, "", up[i], ours[j], out);
      }
      for (const name of ourNames) {
        if (!upNames.includes(name)) out.push(`${path} > ${label} ${name}: only in ours`);
      }
      const common = upNames.filter((n) => ourNames.includes(n));
      const ourCommon = ourNames.filter((n) => upNames.includes(n));
      if (common.join() !== ourCommon.join()) {
        out.push(`${path} > ${key}: declaration order upstream [${common}], ours [${ourCommon}]`);
      }
      return;
    }
    const n = Math.max(up.length, ours.length);
    for (let i = 0; i < n; i++) diffValue(`${path} > ${key}[${i}]`, "", up[i], ours[i], out);
    return;
  }
  if (isObject(up) && isObject(ours)) {
    for (const k of new Set([...Object.keys(up), ...Object.keys(ours)])) {
      const child = Array.isArray(up[k]) || Array.isArray(ours[k]) ? path : `${path} > ${k}`;
      diffValue(child, k, up[k], ours[k], out);
    }
    return;
  }
  if (JSON.stringify(up) !== JSON.stringify(ours)) {
    // A whole list or object missing on one side lands here too.
    const where = Array.isArray(up) || Array.isArray(ours) ? `${path} > ${key}` : path;
    out.push(`${where}: upstream ${show(up)}, ours ${show(ours)}`);
  }
}

/** Every difference between two file descriptors, one line each, prefixed with a path such as
 * `destination.proto > message WeightedAddr > field weight > number`. Empty when equal. */
export function diffFileDescriptor(
  upstream: FileDescriptorProto,
  ours: FileDescriptorProto,
  opts: DiffOptions = {},
): string[] {
  const out: string[] = [];
  diffValue(upstream.name, "", normalize(upstream, opts), normalize(ours, opts), out);
  return out;
}

/** Compares two sets of files by name, then each pair with `diffFileDescriptor`. */
export function diffFileDescriptorSets(
  upstream: readonly FileDescriptorProto[],
  ours: readonly FileDescriptorProto[],
  opts: (fileName: string) => DiffOptions = () => ({}),
): string[] {
  const out: string[] = [];
  for (const up of upstream) {
    const mine = ours.find((f) => f.name === up.name);
    if (mine === undefined) out.push(`${up.name}: missing in ours`);
    else out.push(...diffFileDescriptor(up, mine, opts(up.name)));
  }
  for (const mine of ours) {
    if (!upstream.some((f) => f.name === mine.name)) out.push(`${mine.name}: only in ours`);
  }
  return out;
}
