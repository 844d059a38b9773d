import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { forEachChunk } from "./body-chunks.js";

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
