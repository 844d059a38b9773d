import { describe, expect, it } from "vitest";
import { relabel } from "./relabel.js";

describe("relabel", () => {
  const target = { __meta_port: "dest-admin", __meta_container: "destination" };

  it("keeps on an anchored match and drops otherwise", () => {
    expect(
      relabel(target, [{ source_labels: ["__meta_port"], action: "keep", regex: ".*admin" }]),
    ).toEqual(target);
    expect(
      relabel(target, [{ source_labels: ["__meta_port"], action: "keep", regex: "admin" }]),
    ).toBeUndefined();
  });

  it("drops on a match", () => {
    expect(
      relabel(target, [{ source_labels: ["__meta_port"], action: "drop", regex: "dest-admin" }]),
    ).toBeUndefined();
  });

  it("replaces with the first group by default", () => {
    expect(
      relabel(target, [{ source_labels: ["__meta_container"], target_label: "component" }]),
    ).toEqual({ ...target, component: "destination" });
  });
});
