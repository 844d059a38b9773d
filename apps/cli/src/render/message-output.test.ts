import {
  AddrSetSchema,
  create,
  DestinationProfileSchema,
  tcpAddressFromString,
  toJson,
  UpdateSchema,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { addUpdate, meshedPod } from "../../test/support/sample-messages.js";
import { addReadableAddresses, machineOutput, messageJson } from "./message-output.js";

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

describe("addReadableAddresses", () => {
  it("adds ip:port beside the numeric form of each added address", () => {
    const json = addReadableAddresses(UpdateSchema, toJson(UpdateSchema, addUpdate([meshedPod])));
    expect(json).toMatchObject({
      add: {
        addrs: [{ addr: { ip: { ipv4: 183762956 }, port: 8080, address: "10.244.0.12:8080" } }],
      },
    });
  });

  it("brackets IPv6 hosts and reads removed addresses too", () => {
    const update = create(UpdateSchema, {
      update: {
        case: "remove",
        value: create(AddrSetSchema, {
          addrs: [tcpAddressFromString("[fd00::1]:8080"), tcpAddressFromString("10.0.0.1:80")],
        }),
      },
    });
    const json = addReadableAddresses(UpdateSchema, toJson(UpdateSchema, update));
    expect(json).toEqual({
      remove: {
        addrs: [
          {
            // fd00:: in the high 64 bits, ::1 in the low ones.
            ip: { ipv6: { first: String(0xfd00n << 48n), last: "1" } },
            port: 8080,
            address: "[fd00::1]:8080",
          },
          { ip: { ipv4: 167772161 }, port: 80, address: "10.0.0.1:80" },
        ],
      },
    });
  });

  it("reads a profile's endpoint", () => {
    const profile = create(DestinationProfileSchema, { endpoint: meshedPod });
    const json = addReadableAddresses(
      DestinationProfileSchema,
      toJson(DestinationProfileSchema, profile),
    );
    expect(json).toMatchObject({ endpoint: { addr: { address: "10.244.0.12:8080" } } });
  });

  it("leaves a message without addresses as it is", () => {
    const profile = create(DestinationProfileSchema, { fullyQualifiedName: "web.ns.svc" });
    const plain = toJson(DestinationProfileSchema, profile);
    expect(addReadableAddresses(DestinationProfileSchema, structuredClone(plain))).toEqual(plain);
  });
});
