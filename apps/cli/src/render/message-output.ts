// Machine-readable output: proto JSON (`toJson(schema, message)`, plus a readable `address`
// in each TcpAddress), one message per line for json and one document per message for yaml.
import { type DescMessage, type JsonValue, type MessageShape, toJson } from "@destination/proto";
import { addReadableAddresses } from "./readable-addresses.js";

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
