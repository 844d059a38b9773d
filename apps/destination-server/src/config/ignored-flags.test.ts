import { defaultFlagValues } from "@destination/go-compat";
import { describe, expect, it } from "vitest";
import { IGNORED_FLAGS, warnIgnoredFlags } from "./ignored-flags.js";
import { SERVER_FLAGS } from "./server-flags.js";

describe("warnIgnoredFlags", () => {
  const defaults = defaultFlagValues(SERVER_FLAGS);

  it("names only flags of the table", () => {
    const names = new Set(SERVER_FLAGS.map((f) => f.name));
    for (const { name } of IGNORED_FLAGS) expect(names.has(name)).toBe(true);
  });

  it("is silent at the defaults and warns once per changed flag", () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    warnIgnoredFlags(defaults, defaults, logger);
    expect(warnings).toEqual([]);
    warnIgnoredFlags({ ...defaults, "trace-collector": "collector:55678" }, defaults, logger);
    expect(warnings).toEqual([
      "-trace-collector=collector:55678 has no effect: traces are not sent",
    ]);
  });
});
