// Machine-readable output: proto JSON (`toJson(schema, message)`, plus a readable `address`
// in each TcpAddress), one message per line for json and one document per message for yaml.
import { type DescMessage, type JsonValue, type MessageShape, toJson } from "@destination/proto";
import { stringify } from "yaml";
import { addReadableAddresses } from "./readable-addresses.js";

export type MachineFormat = "json" | "yaml";

export function formatJsonValue(value: JsonValue, format: MachineFormat): string {
  return format === "json" ? `${JSON.stringify(value)}\n` : `---\n${stringify(value)}`;
}

/** The message as proto JSON with readable addresses. */
export function messageJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): JsonValue {
  return addReadableAddresses(schema, toJson(schema, message));
}

export function formatMessage<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  format: MachineFormat,
): string {
  return formatJsonValue(messageJson(schema, message), format);
}
