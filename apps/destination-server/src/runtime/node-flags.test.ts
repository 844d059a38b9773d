import { describe, expect, it } from "vitest";
import { missingNodeFlags, wantedNodeFlags } from "./node-flags.js";

describe("missingNodeFlags", () => {
  it("adds what the process was not given", () => {
    expect(missingNodeFlags(["--max-semi-space-size=8", "--a"], [], undefined)).toEqual([
      "--max-semi-space-size=8",
      "--a",
    ]);
  });

  it("leaves a flag the operator gave, whatever its value or spelling", () => {
    expect(
      missingNodeFlags(
        ["--max-semi-space-size=8", "--single-threaded-gc"],
        ["--max_semi_space_size=32"],
        "--no-single-threaded-gc",
      ),
    ).toEqual([]);
  });

  it("reads NODE_OPTIONS", () => {
    expect(missingNodeFlags(["--max-semi-space-size=8"], [], "--max-semi-space-size=4")).toEqual(
      [],
    );
  });
});

describe("wantedNodeFlags", () => {
  it("takes DESTINATION_NODE_FLAGS over the defaults, empty meaning none", () => {
    expect(wantedNodeFlags({ DESTINATION_NODE_FLAGS: " --a  --b=1 " })).toEqual(["--a", "--b=1"]);
    expect(wantedNodeFlags({ DESTINATION_NODE_FLAGS: "" })).toEqual([]);
  });
});
