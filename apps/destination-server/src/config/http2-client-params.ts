// `--meshed-http2-client-params`: upstream decodes it with Go's encoding/json into the generated
// struct, so keys are the snake_case field names matched case-insensitively and durations are
// `{seconds, nanos}` objects. camelCase keys and `"10s"` durations are accepted as an extension.

import { parseGoDuration } from "@destination/go-compat";
import { create, type Http2ClientParams, Http2ClientParamsSchema } from "@destination/proto";

type FieldKind = "uint32" | "bool" | "duration" | Fields;
interface Fields {
  readonly [jsonName: string]: { readonly kind: FieldKind; readonly property: string };
}

const FLOW_CONTROL: Fields = {
  initial_connection_window_size: { kind: "uint32", property: "initialConnectionWindowSize" },
  initial_stream_window_size: { kind: "uint32", property: "initialStreamWindowSize" },
  adaptive_flow_control: { kind: "bool", property: "adaptiveFlowControl" },
};
const KEEP_ALIVE: Fields = {
  interval: { kind: "duration", property: "interval" },
  timeout: { kind: "duration", property: "timeout" },
  while_idle: { kind: "bool", property: "whileIdle" },
};
const INTERNALS: Fields = {
  max_concurrent_reset_streams: { kind: "uint32", property: "maxConcurrentResetStreams" },
  max_frame_size: { kind: "uint32", property: "maxFrameSize" },
  max_send_buf_size: { kind: "uint32", property: "maxSendBufSize" },
};
const PARAMS: Fields = {
  flow_control: { kind: FLOW_CONTROL, property: "flowControl" },
  keep_alive: { kind: KEEP_ALIVE, property: "keepAlive" },
  internals: { kind: INTERNALS, property: "internals" },
};
const DURATION: Fields = {
  seconds: { kind: "uint32", property: "seconds" },
  nanos: { kind: "uint32", property: "nanos" },
};

const fold = (key: string) =>
  key.replaceAll("\u017f", "s").replaceAll("\u212a", "k").toLowerCase().replaceAll("_", "");

function fieldFor(fields: Fields, key: string) {
  const exact = fields[key];
  if (exact !== undefined) return exact;
  const folded = fold(key);
  return Object.entries(fields).find(([name]) => fold(name) === folded)?.[1];
}

function typeError(path: string, value: unknown, want: string): Error {
  const got = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return new Error(`json: cannot unmarshal ${got} into field ${path} of type ${want}`);
}

function decodeInteger(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw typeError(path, value, "integer");
  }
  return value;
}

function decodeDuration(value: unknown, path: string): { seconds: bigint; nanos: number } {
  if (typeof value === "string") {
    let nanosTotal: bigint;
    try {
      nanosTotal = parseGoDuration(value);
    } catch {
      throw typeError(path, value, "duration");
    }
    return { seconds: nanosTotal / 1_000_000_000n, nanos: Number(nanosTotal % 1_000_000_000n) };
  }
  if (typeof value !== "object" || Array.isArray(value)) throw typeError(path, value, "duration");
  let seconds = 0n;
  let nanos = 0;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const field = fieldFor(DURATION, key);
    if (field === undefined || item === null) continue;
    if (field.property === "seconds") {
      seconds = BigInt(
        decodeInteger(item, `${path}.seconds`, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      );
    } else {
      nanos = decodeInteger(item, `${path}.nanos`, -(2 ** 31), 2 ** 31 - 1);
    }
  }
  return { seconds, nanos };
}

function decodeObject(value: unknown, fields: Fields, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw typeError(path, value, "object");
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const field = fieldFor(fields, key);
    // Go leaves a field untouched for null and ignores unknown keys.
    if (field === undefined || item === null) continue;
    const itemPath = path === "" ? key : `${path}.${key}`;
    if (field.kind === "uint32") {
      out[field.property] = decodeInteger(item, itemPath, 0, 2 ** 32 - 1);
    } else if (field.kind === "bool") {
      if (typeof item !== "boolean") throw typeError(itemPath, item, "bool");
      out[field.property] = item;
    } else if (field.kind === "duration") {
      out[field.property] = decodeDuration(item, itemPath);
    } else {
      out[field.property] = decodeObject(item, field.kind, itemPath);
    }
  }
  return out;
}

/**
 * Decodes the flag value. Returns undefined for an empty value (unset: no `http2` field is ever
 * sent); throws with a one-line reason for invalid JSON or a value of the wrong type.
 */
export function parseHttp2ClientParams(text: string): Http2ClientParams | undefined {
  if (text === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (value === null) return create(Http2ClientParamsSchema, {});
  return create(Http2ClientParamsSchema, decodeObject(value, PARAMS, ""));
}
