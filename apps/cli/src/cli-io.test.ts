import { describe, expect, it } from "vitest";
import { LiveScreen } from "./cli-io.js";

function screenOn(isTTY: boolean) {
  let written = "";
  const stdout = {
    write: (text: string) => {
      written += text;
    },
  };
  const screen = new LiveScreen({ isTTY, stdout });
  return { screen, written: () => written };
}

describe("LiveScreen", () => {
  it("redraws in place on a terminal", () => {
    const { screen, written } = screenOn(true);
    screen.show("one\n");
    screen.show("two\n");
    expect(written()).toBe("\x1b[H\x1b[2Jone\n\x1b[H\x1b[2Jtwo\n");
  });

  it("appends frames separated by a blank line, without escape codes, elsewhere", () => {
    const { screen, written } = screenOn(false);
    screen.show("one\n");
    screen.show("two\n");
    expect(written()).toBe("one\n\ntwo\n");
  });
});
