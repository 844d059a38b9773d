import { describe, expect, it } from "vitest";
import { filterPackageName, parsePnpmCommand } from "./pnpm-command.js";

describe("parsePnpmCommand", () => {
  it("tells scripts, pnpm's own commands, exec and filters apart", () => {
    expect(parsePnpmCommand(["test:unit"]).action).toEqual({
      kind: "script-or-bin",
      name: "test:unit",
      args: [],
    });
    expect(parsePnpmCommand(["install", "--frozen-lockfile"]).action.kind).toBe("builtin");
    expect(parsePnpmCommand(["test"]).action).toEqual({ kind: "script", name: "test", args: [] });
    expect(parsePnpmCommand(["run", "--if-present", "check"]).action).toMatchObject({
      kind: "script",
      name: "check",
    });
    const exec = parsePnpmCommand(["-F", "@x/a", "exec", "vitest", "run", "t.test.ts"]);
    expect(exec.filters).toEqual(["@x/a"]);
    expect(exec.action).toEqual({ kind: "exec", name: "vitest", args: ["run", "t.test.ts"] });
    expect(parsePnpmCommand(["--filter=@x/b", "-r", "build"])).toMatchObject({
      filters: ["@x/b"],
      recursive: true,
    });
  });
});

describe("filterPackageName", () => {
  it("reads the package name out of dependency selectors, not out of paths or globs", () => {
    expect(filterPackageName("@destination/cli...")).toBe("@destination/cli");
    expect(filterPackageName("@destination/server^...")).toBe("@destination/server");
    expect(filterPackageName("...@destination/core")).toBe("@destination/core");
    expect(filterPackageName("./apps/cli")).toBeUndefined();
    expect(filterPackageName("@destination/*")).toBeUndefined();
  });
});
