import { describe, expect, it } from "vitest";
import { ProtobufError, ProtobufReader } from "./protobuf-reader.js";

const reader = (...bytes: number[]) => new ProtobufReader(Buffer.from(bytes), 0, bytes.length);

describe("ProtobufReader", () => {
  it("reads int32 values, negative ones from their ten-byte form", () => {
    expect(reader(0xac, 0x02).int32()).toBe(300);
    // -1 as an int32 is written sign-extended to 64 bits.
    expect(reader(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01).int32()).toBe(-1);
  });

  it("reads int64 varints past 32 bits", () => {
    // 1796165978 s (2026-12-01T22:59:38Z), then 2^40 + 5.
    const r = reader(0xda, 0xa2, 0xbd, 0xd8, 0x06, 0x85, 0x80, 0x80, 0x80, 0x80, 0x20);
    expect(r.varint()).toBe(1796165978);
    expect(r.varint()).toBe(2 ** 40 + 5);
    expect(r.done).toBe(true);
  });

  it("refuses a varint or a field that runs past its message", () => {
    expect(() => reader(0x80, 0x80).varint()).toThrow(ProtobufError);
    // A string of 5 bytes with 2 there.
    expect(() => reader(0x05, 0x61, 0x62).string()).toThrow(/runs past/);
  });

  it("skips fields of every wire type it may meet", () => {
    // varint, fixed64, length-delimited, fixed32, then a string that is read.
    const r = reader(
      0x08,
      0x96,
      0x01,
      0x11,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0x1a,
      0x02,
      9,
      9,
      0x25,
      1,
      2,
      3,
      4,
      0x2a,
      0x01,
      0x78,
    );
    for (let i = 0; i < 4; i++) r.skip(r.varint());
    expect(r.varint()).toBe(0x2a);
    expect(r.string()).toBe("x");
    expect(() => reader(0x0b).skip(0x0b)).toThrow(/wire type 3/);
  });

  it("reads every string as written, whether it repeats, collides in the string cache or not", () => {
    // Short ASCII strings go through a cache of recent strings; long and non-ASCII ones do not.
    // 20k distinct values fill every slot of it many times over, each read twice in a row.
    const values: string[] = [""];
    for (let i = 0; i < 20_000; i++) {
      const base = `label-${i.toString(36)}`;
      if (i % 7 === 0) values.push(`zoné-${i}`);
      else if (i % 11 === 0) values.push(base.padEnd(64 + (i % 3), "x"));
      else values.push(base);
    }
    values.push("ünïcödé", "a", "b", "ab", "ba");
    const fields = values.flatMap((value) => {
      const bytes = Buffer.from(value, "utf8");
      const field = Buffer.concat([Buffer.from([bytes.length]), bytes]);
      if (bytes.length >= 0x80) throw new Error("one-byte lengths only");
      return [field, field];
    });
    const buf = Buffer.concat(fields);
    const r = new ProtobufReader(buf, 0, buf.length);
    const read: string[] = [];
    while (!r.done) read.push(r.string());
    expect(read).toEqual(values.flatMap((value) => [value, value]));
  });
});
