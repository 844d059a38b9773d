import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { withoutSubcommand } from "./subcommand.js";

describe("withoutSubcommand", () => {
  it("drops a leading destination and keeps flags-only command lines", () => {
    expect(withoutSubcommand(["destination", "-addr=:8086"])).toEqual(["-addr=:8086"]);
    expect(withoutSubcommand(["destination"])).toEqual([]);
    expect(withoutSubcommand(["-addr=:8086", "destination"])).toEqual([
      "-addr=:8086",
      "destination",
    ]);
    expect(withoutSubcommand([])).toEqual([]);
  });

  it("refuses another leading word, naming it", () => {
    expect(() => withoutSubcommand(["identity"])).toThrow(ConfigError);
    expect(() => withoutSubcommand(["Destination", "-addr=:1"])).toThrow(
      'unknown subcommand "Destination": the only one is destination',
    );
  });
});
