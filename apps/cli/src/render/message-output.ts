// Machine-readable output: proto JSON (`toJson(schema, message)`, plus a readable `address`
// in each TcpAddress), one message per line for json and one document per message for yaml.
import {
  type DescMessage,
  fromJson,
  type JsonValue,
  type MessageShape,
  TcpAddressSchema,
  tcpAddressToString,
  toJson,
} from "@destination/proto";

export type MachineFormat = "json" | "yaml";

/** Turns each value or message into the text written for it, in one machine format. */
export interface MachineOutput {
  value(value: JsonValue): string;
  message<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): string;
}

/**
 * The writer of one format. YAML's library is imported only for `yaml`, so that `dst` with a
 * table or JSON never loads it (README, "Import cost").
 */
export async function machineOutput(format: MachineFormat): Promise<MachineOutput> {
  let value: (value: JsonValue) => string;
  if (format === "json") value = (v) => `${JSON.stringify(v)}\n`;
  else {
    // yaml is CommonJS: its exports object is the default export.
    const { stringify } = (await import("yaml")).default;
    value = (v) => `---\n${stringify(v)}`;
  }
  return { value, message: (schema, message) => value(messageJson(schema, message)) };
}

/** The message as proto JSON with readable addresses. */
export function messageJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): JsonValue {
  return addReadableAddresses(schema, toJson(schema, message));
}

// Proto JSON writes an IP as a number (IPv4) or as two 64-bit halves (IPv6), which neither people
// nor `jq` filters can read. Every TcpAddress object in a message's JSON gets an `"address"`
// beside those fields: "10.244.0.7:8080", or "[fd00::1]:8080" for IPv6.
type JsonObject = { [key: string]: JsonValue };

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Adds `address` to each TcpAddress found in `json`, which must be `toJson(desc, …)` output with
 * the default JSON field names. Changes `json` in place and returns it.
 */
export function addReadableAddresses(desc: DescMessage, json: JsonValue): JsonValue {
  if (!isObject(json)) return json;
  if (desc.typeName === TcpAddressSchema.typeName) {
    try {
      json.address = tcpAddressToString(fromJson(TcpAddressSchema, json));
    } catch {
      // An address without an IP has no readable form; it is left as the server sent it.
    }
    return json;
  }
  for (const field of desc.fields) {
    const value = json[field.jsonName];
    if (value === undefined) continue;
    if (field.fieldKind === "message") {
      addReadableAddresses(field.message, value);
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      for (const item of value) addReadableAddresses(field.message, item);
    } else if (field.fieldKind === "map" && field.mapKind === "message" && isObject(value)) {
      for (const item of Object.values(value)) addReadableAddresses(field.message, item);
    }
  }
  return json;
}
