import { describe, expect, it } from "vitest";
import { shared, shareValues } from "./protobuf-object-meta.js";

// Strings built at run time, so that equal ones are distinct copies, as decoded ones are.
const copy = (text: string) => [...text].join("");

describe("shared strings", () => {
  it("gives back one copy of a short string that repeats, the same text every time", () => {
    const first = shared(copy("emojivoto"));
    expect(shared(copy("emojivoto"))).toBe(first);
    expect(first).toBe("emojivoto");
  });

  it("reads every value as written, past the bound of what it keeps", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `value-${i % 5_000}`);
    expect(values.map((v) => shared(copy(v)))).toEqual(values);
    const long = "x".repeat(100);
    expect(shared(long)).toBe(long);
  });

  it("shares the values of a map in place, keys and values unchanged", () => {
    const map = { app: copy("web"), "pod-template-hash": copy("7b6c9f5d4") };
    expect(shareValues(map)).toBe(map);
    expect(map).toEqual({ app: "web", "pod-template-hash": "7b6c9f5d4" });
  });
});
