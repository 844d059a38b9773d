// The dedicated GetDestination decoder against protobuf-es `fromBinary`: the same message (type
// name, defaults, key order, unknown fields) or the same error, on well-formed requests, requests
// with unknown fields or unusual encodings, and malformed bytes.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { GetDestinationSchema } from "./gen/destination_pb.js";
import { getDestinationFromBinary } from "./get-destination-binary.js";
import { DestinationService } from "./service.js";
import { type Rng, seededRandom } from "./test-fixtures.js";

const TEXTS = [
  "",
  "k8s",
  "web.emojivoto.svc.cluster.local:8080",
  '{"ns":"emojivoto","nodeName":"node-1","pod":"vote-bot-7b6c9f5d4-abcde"}',
  "x".repeat(12),
  "x".repeat(13),
  "x".repeat(127),
  "x".repeat(128),
  // Lengths whose varints have every bit of their bytes in use.
  "z".repeat(10_000),
  // Text that reads as empty `scheme` fields from any even offset, so that a wrong length is
  // not caught by falling back to fromBinary.
  "\n\u0000".repeat(5_000),
  "y".repeat(20_000),
  "ünïcödé",
  "😀",
  "\ufeffbom",
  "\u007f\u0000",
  // Longer than the decoder's char code loop takes, so decoded by Node.
  "日本語のラベル",
  "😀".repeat(10),
  `\ufeff${"b".repeat(20)}\ufeff`,
  `${"c".repeat(20)}\ufffd`,
  `${"d".repeat(20)}\uffff\u0080\u07ff\u0800`,
];

function text(r: Rng): string {
  return r.chance(0.3)
    ? `svc-${r.int(1_000_000)}.ns.svc.cluster.local:${r.int(65_536)}`
    : r.pick(TEXTS);
}

function varint(value: number): number[] {
  const out: number[] = [];
  while (value > 0x7f) {
    out.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  out.push(value);
  return out;
}

/** A string field, now and then with a length of more bytes than needed (still valid). */
function stringField(r: Rng, fieldNo: number, value: string): number[] {
  const bytes = [...Buffer.from(value, "utf8")];
  const length = varint(bytes.length);
  if (r.chance(0.1) && length.length < 5) {
    length[length.length - 1] = (length[length.length - 1] as number) | 0x80;
    length.push(0);
  }
  return [(fieldNo << 3) | 2, ...length, ...bytes];
}

function unknownField(r: Rng): number[] {
  const no = r.pick([4, 15, 16, 99, 2_048, 536_870_911]);
  switch (r.int(5)) {
    case 0:
      return [...varint((no << 3) >>> 0), ...varint(r.int(0x100000000))];
    case 1:
      return [...varint(((no << 3) | 1) >>> 0), 1, 2, 3, 4, 5, 6, 7, 8];
    case 2:
      return [...varint(((no << 3) | 2) >>> 0), 3, 0xff, 0, 0x80];
    case 3:
      return [...varint(((no << 3) | 3) >>> 0), 0x08, 0x01, ...varint(((no << 3) | 4) >>> 0)];
    default:
      return [...varint(((no << 3) | 5) >>> 0), 9, 8, 7, 6];
  }
}

/** Records of the three fields in any order, repeated or left out, with unknown fields between. */
function request(r: Rng, unknown: boolean): Uint8Array {
  const out: number[] = [];
  for (let i = r.int(6); i > 0; i--) {
    if (unknown && r.chance(0.3)) out.push(...unknownField(r));
    else out.push(...stringField(r, 1 + r.int(3), text(r)));
  }
  return new Uint8Array(out);
}

/** What decoding gives: the message, or the error's class and message. */
function outcome(decode: () => unknown): unknown {
  try {
    return { message: decode() };
  } catch (err) {
    return err instanceof Error ? { error: `${err.constructor.name}: ${err.message}` } : { err };
  }
}

function expectSame(bytes: Uint8Array, label: string): void {
  const expected = outcome(() => fromBinary(GetDestinationSchema, bytes));
  const actual = outcome(() => getDestinationFromBinary(bytes));
  expect(actual, label).toStrictEqual(expected);
  if ("message" in (expected as object)) {
    const keys = (o: unknown) => Object.keys((o as { message: object }).message);
    expect(keys(actual), label).toEqual(keys(expected));
  }
}

describe("getDestinationFromBinary", () => {
  it("decodes what toBinary encodes as fromBinary does", () => {
    const r = seededRandom(42);
    for (let i = 0; i < 2_000; i++) {
      const message = create(GetDestinationSchema, {
        scheme: r.chance(0.8) ? "k8s" : text(r),
        path: text(r),
        contextToken: r.chance(0.5) ? text(r) : "",
      });
      const bytes = toBinary(GetDestinationSchema, message);
      expectSame(bytes, `message ${i}`);
      expect(getDestinationFromBinary(bytes), `message ${i}`).toStrictEqual(message);
    }
  });

  it("decodes the empty request", () => {
    expectSame(new Uint8Array(0), "empty");
    expect(getDestinationFromBinary(new Uint8Array(0))).toStrictEqual(create(GetDestinationSchema));
  });

  it("takes the last of repeated fields, in any order, as fromBinary does", () => {
    const r = seededRandom(7);
    for (let i = 0; i < 2_000; i++) expectSame(request(r, false), `request ${i}`);
  });

  it("keeps unknown fields as fromBinary does", () => {
    const r = seededRandom(8);
    for (let i = 0; i < 2_000; i++) expectSame(request(r, true), `request ${i}`);
  });

  it("fails on malformed bytes exactly when fromBinary does, with its error", () => {
    const r = seededRandom(9);
    for (let i = 0; i < 400; i++) {
      const bytes = request(r, r.chance(0.5));
      // Every truncation.
      for (let end = 0; end < Math.min(bytes.length, 200); end++) {
        expectSame(bytes.subarray(0, end), `request ${i} cut at ${end}`);
      }
      // A few corrupted bytes.
      for (let k = 0; k < 5 && bytes.length > 0; k++) {
        const copy = bytes.slice();
        copy[r.int(copy.length)] = r.int(256);
        expectSame(copy, `request ${i} corrupted ${k}`);
      }
    }
    // Random bytes as a field's text, mostly invalid UTF-8, around the decoder's char code loop.
    const pieces = [[0x61], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80]];
    for (let i = 0; i < 3_000; i++) {
      const text: number[] = [];
      for (let k = r.int(30); k > 0; k--) {
        if (r.chance(0.8)) text.push(...r.pick(pieces));
        else text.push(r.int(256));
      }
      const field = 1 + r.int(3);
      expectSame(new Uint8Array([(field << 3) | 2, text.length, ...text]), `text ${i}`);
    }
    // Random bytes, mostly not a request at all.
    for (let i = 0; i < 2_000; i++) {
      expectSame(new Uint8Array(Array.from({ length: r.int(12) }, () => r.int(256))), `bytes ${i}`);
    }
  });

  it("matches fromBinary on odd encodings of the known fields", () => {
    const cases: Array<[string, number[]]> = [
      ["wrong wire type (varint)", [0x08, 0x05]],
      ["wrong wire type (fixed32)", [0x0d, 1, 2, 3, 4]],
      ["wrong wire type (fixed64)", [0x11, 1, 2, 3, 4, 5, 6, 7, 8]],
      ["wrong wire type (group)", [0x0b, 0x0c]],
      ["field 0", [0x02, 0x00]],
      ["wire type 6", [0x0e]],
      ["length past the end", [0x0a, 0x05, 0x61]],
      ["truncated length", [0x12, 0x80]],
      ["length of five bytes", [0x0a, 0x81, 0x80, 0x80, 0x80, 0x00, 0x61]],
      ["length of six bytes", [0x0a, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0x61]],
      ["huge length", [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]],
      ["tag of two bytes", [0x8a, 0x00, 0x01, 0x61]],
      ["invalid UTF-8", [0x0a, 0x02, 0xc3, 0x28]],
      ["overlong UTF-8", [0x12, 0x02, 0xc0, 0xaf]],
      ["encoded surrogate", [0x1a, 0x03, 0xed, 0xa0, 0x80]],
      ["valid UTF-8", [0x0a, 0x02, 0xc3, 0xa9]],
      ["BOM", [0x0a, 0x03, 0xef, 0xbb, 0xbf]],
      ["invalid UTF-8, long", [0x0a, 0x0e, ...Array(12).fill(0x61), 0xc3, 0x28]],
      ["truncated UTF-8, long", [0x12, 0x0e, ...Array(12).fill(0x61), 0x61, 0xe2]],
      ["overlong UTF-8, long", [0x12, 0x0e, ...Array(12).fill(0x61), 0xc0, 0xaf]],
      ["encoded surrogate, long", [0x1a, 0x0f, ...Array(12).fill(0x61), 0xed, 0xa0, 0x80]],
      ["code point past U+10FFFF", [0x1a, 0x10, ...Array(12).fill(0x61), 0xf4, 0x90, 0x80, 0x80]],
      ["BOM, long", [0x0a, 0x0f, 0xef, 0xbb, 0xbf, ...Array(12).fill(0x61)]],
      ["U+FFFD, long", [0x0a, 0x0f, ...Array(12).fill(0x61), 0xef, 0xbf, 0xbd]],
      ["unknown varint", [0x20, 0x96, 0x01, 0x0a, 0x01, 0x61]],
      ["unknown truncated varint", [0x0a, 0x01, 0x61, 0x20, 0x96]],
    ];
    for (const [label, bytes] of cases) expectSame(new Uint8Array(bytes), label);
  });

  it("reads a Buffer that is a view into a larger one", () => {
    const body = toBinary(
      GetDestinationSchema,
      create(GetDestinationSchema, { scheme: "k8s", path: "x".repeat(40), contextToken: "{}" }),
    );
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body, Buffer.from([7])]);
    const view = frame.subarray(5, 5 + body.length);
    expectSame(view, "Buffer view");
    expectSame(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), "Uint8Array view");
    expect(getDestinationFromBinary(view).path).toBe("x".repeat(40));
  });

  it("backs requestDeserialize of both RPCs", () => {
    expect(DestinationService.get.requestDeserialize).toBe(getDestinationFromBinary);
    expect(DestinationService.getProfile.requestDeserialize).toBe(getDestinationFromBinary);
  });
});
