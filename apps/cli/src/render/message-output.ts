// Machine-readable output: proto JSON (exactly `toJson(schema, message)`), one message per line
// for json and one document per message for yaml.
import { type DescMessage, type JsonValue, type MessageShape, toJson } from "@destination/proto";
import { stringify } from "yaml";

export type MachineFormat = "json" | "yaml";

export function formatJsonValue(value: JsonValue, format: MachineFormat): string {
  return format === "json" ? `${JSON.stringify(value)}\n` : `---\n${stringify(value)}`;
}

export function formatMessage<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  format: MachineFormat,
): string {
  return formatJsonValue(toJson(schema, message), format);
}
