import { UpdateSchema } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { addUpdate, meshedPod } from "../../test/support/sample-messages.js";
import { machineOutput, messageJson } from "./message-output.js";

describe("machineOutput", () => {
  const update = addUpdate([meshedPod]);

  it("writes the proto JSON on one line, with a readable address beside each numeric one", async () => {
    const line = (await machineOutput("json")).message(UpdateSchema, update);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(line).toBe(`${JSON.stringify(messageJson(UpdateSchema, update))}\n`);
    expect(JSON.parse(line)).toMatchObject({
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: 183762956 }, port: 8080, address: "10.244.0.12:8080" },
            weight: 10000,
          },
        ],
      },
    });
  });

  it("writes one YAML document per message holding the same JSON value", async () => {
    const yaml = await machineOutput("yaml");
    const text = yaml.message(UpdateSchema, update) + yaml.message(UpdateSchema, update);
    const documents = parseAllDocuments(text).map((doc) => doc.toJS());
    expect(documents).toEqual([
      messageJson(UpdateSchema, update),
      messageJson(UpdateSchema, update),
    ]);
  });
});
