// Every field of the schema reaches the wire. Messages are built from the descriptors alone:
// every field of every message an Update, a DestinationProfile or a GetDestination holds is set
// to a value of its own (every case of every oneof in turn), encoded through the paths the
// server uses and read back with `fromBinary`. A field added to the .proto is covered without a
// change here; an encoder that leaves one out fails.

import {
  clone,
  create,
  type DescField,
  type DescMessage,
  equals,
  fromBinary,
  type Message,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  DestinationProfileSchema,
  GetDestinationSchema,
  UpdateSchema,
} from "./gen/destination_pb.js";
import { DestinationService, encodeDestinationProfile, encodeUpdate } from "./service.js";

// Messages that hold themselves (a RequestMatch's `all`, `any`, `not`) are cut off this deep.
const MAX_DEPTH = 6;

type Init = Record<string, unknown>;

/** Builds messages of a schema with every field set, recording which fields were. */
class Filler {
  /** `typeName.field` of every field set so far. */
  readonly set = new Set<string>();
  #next = 1;

  constructor(readonly variant: number) {}

  message(desc: DescMessage, depth = 0): Init {
    const init: Init = {};
    if (depth > MAX_DEPTH) return init;
    for (const field of desc.fields) {
      if (field.oneof !== undefined) continue;
      init[field.localName] = this.#field(field, depth);
      this.set.add(`${desc.typeName}.${field.name}`);
    }
    for (const oneof of desc.oneofs) {
      const field = oneof.fields[this.variant % oneof.fields.length] as DescField;
      init[oneof.localName] = { case: field.localName, value: this.#field(field, depth) };
      this.set.add(`${desc.typeName}.${field.name}`);
    }
    return init;
  }

  #field(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case "scalar":
        return this.#scalar(field.scalar, field.longAsString);
      case "enum":
        return this.#enum(field.enum.values.map((v) => v.number));
      case "message":
        return this.message(field.message, depth + 1);
      case "list":
        if (field.listKind === "message") {
          return [this.message(field.message, depth + 1), this.message(field.message, depth + 1)];
        }
        if (field.listKind === "enum") {
          return [this.#enum(field.enum.values.map((v) => v.number))];
        }
        return [
          this.#scalar(field.scalar, field.longAsString),
          this.#scalar(field.scalar, field.longAsString),
        ];
      case "map": {
        const key = String(this.#scalar(field.mapKey, true));
        const value =
          field.mapKind === "message"
            ? this.message(field.message, depth + 1)
            : field.mapKind === "enum"
              ? this.#enum(field.enum.values.map((v) => v.number))
              : this.#scalar(field.scalar, false);
        return { [key]: value };
      }
    }
  }

  /** A value of the type no other field got, and never the type's default. */
  #scalar(type: ScalarType, longAsString: boolean): unknown {
    const n = this.#next++;
    switch (type) {
      case ScalarType.STRING:
        return `text-${n}-ü`;
      case ScalarType.BYTES:
        return new Uint8Array([n & 0xff, 0, 0xff]);
      case ScalarType.BOOL:
        return true;
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return n + 0.5;
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return longAsString ? String(n) : BigInt(n);
      default:
        return n;
    }
  }

  #enum(numbers: number[]): number {
    const nonZero = numbers.filter((n) => n !== 0);
    return nonZero[this.#next++ % nonZero.length] ?? 0;
  }
}

/** `typeName.field` of every field reachable from `desc`, every oneof case included. */
function reachableFields(desc: DescMessage, into = new Set<string>(), seen = new Set<string>()) {
  if (seen.has(desc.typeName)) return into;
  seen.add(desc.typeName);
  for (const field of desc.fields) {
    into.add(`${desc.typeName}.${field.name}`);
    if (field.message !== undefined) reachableFields(field.message, into, seen);
  }
  return into;
}

/** Messages of `desc` that together set every field and every oneof case. */
function everyFieldOf<Desc extends DescMessage>(desc: Desc): Message[] {
  const want = reachableFields(desc);
  const covered = new Set<string>();
  const messages: Message[] = [];
  for (let variant = 0; covered.size < want.size; variant++) {
    if (variant > 64) throw new Error("some fields are never set");
    const filler = new Filler(variant);
    messages.push(create(desc, filler.message(desc) as never) as Message);
    for (const name of filler.set) covered.add(name);
  }
  expect([...covered].sort()).toEqual([...want].sort());
  return messages;
}

/** Every message reads back as it was written. */
function expectWhole<Desc extends DescMessage>(
  desc: Desc,
  messages: Message[],
  encode: (message: Message) => Uint8Array,
): void {
  for (const [i, message] of messages.entries()) {
    const decoded = fromBinary(desc, encode(message));
    expect(equals(desc, decoded as never, message as never), `variant ${i}`).toBe(true);
  }
}

describe("every field of the schema reaches the wire", () => {
  it("fails an encoder that leaves out one field", () => {
    // An encoder as a hand-written one that does not know of `WeightedAddr.weight` would be.
    const skipsWeight = (message: Message) => {
      const u = clone(UpdateSchema, message as never);
      if (u.update.case === "add") for (const addr of u.update.value.addrs) addr.weight = 0;
      return toBinary(UpdateSchema, u);
    };
    expect(() => expectWhole(UpdateSchema, everyFieldOf(UpdateSchema), skipsWeight)).toThrow();
  });

  it("Update, through encodeUpdate and the service's serializer", () => {
    const updates = everyFieldOf(UpdateSchema);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expectWhole(UpdateSchema, updates, (u) => encodeUpdate(u as never));
    expectWhole(UpdateSchema, updates, (u) => DestinationService.get.responseSerialize(u as never));
  });

  it("DestinationProfile, through encodeDestinationProfile and the service's serializer", () => {
    const profiles = everyFieldOf(DestinationProfileSchema);
    expectWhole(DestinationProfileSchema, profiles, (p) => encodeDestinationProfile(p as never));
    expectWhole(DestinationProfileSchema, profiles, (p) =>
      DestinationService.getProfile.responseSerialize(p as never),
    );
  });

  it("GetDestination, through both methods' request deserializers", () => {
    for (const method of [DestinationService.get, DestinationService.getProfile]) {
      for (const request of everyFieldOf(GetDestinationSchema)) {
        const bytes = Buffer.from(toBinary(GetDestinationSchema, request as never));
        const decoded = method.requestDeserialize(bytes);
        expect(equals(GetDestinationSchema, decoded, request as never)).toBe(true);
        expect(toBinary(GetDestinationSchema, decoded)).toEqual(new Uint8Array(bytes));
      }
    }
  });
});
