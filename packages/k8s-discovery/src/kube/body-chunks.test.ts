import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachChunk, NdjsonLines } from "./body-chunks.js";

describe("forEachChunk", () => {
  it("hands every chunk over in order and resolves at the end of the body", async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const done = forEachChunk(body, (chunk) => seen.push(chunk.toString()));
    body.write("a");
    body.write("bc");
    body.end("d");
    await done;
    expect(seen.join("")).toBe("abcd");
  });

  it("rejects with what the reader threw, and stops the body", async () => {
    const body = new PassThrough();
    const done = forEachChunk(body, () => {
      throw new Error("a field runs past its message");
    });
    body.write("x");
    await expect(done).rejects.toThrow("a field runs past its message");
    expect(body.destroyed).toBe(true);
  });

  it("resolves when the reader stops, reads no further chunk and releases the body", async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const done = forEachChunk(body, (chunk, stop) => {
      seen.push(chunk.toString());
      if (chunk.toString() === "410") stop();
    });
    body.write("a");
    await new Promise((resolve) => setImmediate(resolve));
    body.write("410");
    await done;
    body.write("after");
    expect(seen).toEqual(["a", "410"]);
    expect(body.destroyed).toBe(true);
  });

  it("rejects when the body closes before its end", async () => {
    const body = new PassThrough();
    const done = forEachChunk(body, () => {});
    body.write("x");
    body.destroy();
    await expect(done).rejects.toThrow(/premature close/i);
  });
});

const bytes = (text: string) => new TextEncoder().encode(text);

function splitAll(chunks: Uint8Array[]): string[] {
  const lines = new NdjsonLines();
  return [...chunks.flatMap((c) => lines.push(c)), ...lines.end()];
}

describe("NdjsonLines", () => {
  it("returns whole lines only, holding a partial line until its newline arrives", () => {
    const lines = new NdjsonLines();
    expect(lines.push(bytes('{"a":1}\n{"b":'))).toEqual(['{"a":1}']);
    expect(lines.push(bytes("2}"))).toEqual([]);
    expect(lines.push(bytes('\n{"c":3}\n'))).toEqual(['{"b":2}', '{"c":3}']);
    expect(lines.end()).toEqual([]);
  });

  it("accepts CRLF, skips blank lines and returns an unterminated last line at the end", () => {
    expect(splitAll([bytes('{"a":1}\r\n\r\n\n{"b":2}')])).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("reassembles a multi-byte character split between chunks", () => {
    const all = bytes('{"zone":"zürich-€"}\n');
    const at = all.indexOf(0xe2) + 1; // inside the euro sign
    expect(splitAll([all.slice(0, at), all.slice(at)])).toEqual(['{"zone":"zürich-€"}']);
  });

  it("yields the same lines however the stream is cut into chunks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.json(), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 50 }),
        (values, sizes) => {
          const lines = values.map((v) => JSON.stringify(JSON.parse(v)));
          const all = bytes(lines.map((l) => `${l}\n`).join(""));
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (let i = 0; at < all.length; i++) {
            const size = sizes[i % sizes.length] ?? 1;
            chunks.push(all.slice(at, at + size));
            at += size;
          }
          expect(splitAll(chunks)).toEqual(lines.filter((l) => l.trim() !== ""));
        },
      ),
    );
  });

  it("fails on a line longer than the limit instead of buffering forever", () => {
    const lines = new NdjsonLines(10);
    expect(() => lines.push(bytes("x".repeat(11)))).toThrow(/longer than 10/);
  });
});
