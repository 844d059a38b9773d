import { describe, expect, it } from "vitest";
import { PortSet } from "./port-set.js";

describe("PortSet", () => {
  it("compares as a set: same members in any order are equal", () => {
    const set = PortSet.of([80, 5432]);
    expect(set.equals(new Set([5432, 80]))).toBe(true);
    expect(set.equals(new Set([80]))).toBe(false);
    expect(set.equals(new Set([80, 5433]))).toBe(false);
    expect(PortSet.of([]).equals(new Set())).toBe(true);
  });

  it("is a copy of its source and offers no way to change it", () => {
    const source = new Set([80]);
    const set = PortSet.of(source);
    source.add(81);
    expect([...set]).toEqual([80]);
    expect(set.has(81)).toBe(false);
    expect("add" in set || "delete" in set || "clear" in set).toBe(false);
    expect(PortSet.of(set)).toBe(set);
  });

  it("reads like a ReadonlySet", () => {
    const set = PortSet.of([3, 1, 2]);
    const seen: [number, number, ReadonlySet<number>][] = [];
    set.forEach((a, b, s) => {
      seen.push([a, b, s]);
    });
    expect(seen).toEqual([
      [3, 3, set],
      [1, 1, set],
      [2, 2, set],
    ]);
    expect(set.size).toBe(3);
    expect([...set.keys()]).toEqual([3, 1, 2]);
    expect([...set.values()]).toEqual([3, 1, 2]);
    expect([...set.entries()]).toEqual([
      [3, 3],
      [1, 1],
      [2, 2],
    ]);
  });
});
