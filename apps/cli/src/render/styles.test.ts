import { describe, expect, it } from "vitest";
import { colorStyles, plainStyles, stylesFor } from "./styles.js";

describe("stylesFor", () => {
  it("colors only a terminal without NO_COLOR", () => {
    expect(stylesFor({ isTTY: true, env: {} })).toBe(colorStyles);
    expect(stylesFor({ isTTY: true, env: { NO_COLOR: "1" } })).toBe(plainStyles);
    expect(stylesFor({ isTTY: false, env: {} })).toBe(plainStyles);
    // no-color.org: an empty NO_COLOR does not count.
    expect(stylesFor({ isTTY: true, env: { NO_COLOR: "" } })).toBe(colorStyles);
  });

  it("wraps text in SGR codes that reset only what they set", () => {
    expect(colorStyles.green("+")).toBe("\x1b[32m+\x1b[39m");
    expect(colorStyles.bold("IP")).toBe("\x1b[1mIP\x1b[22m");
    expect(plainStyles.red("-")).toBe("-");
  });
});
