import { describe, expect, it } from "vitest";
import { parseCommandLine, ShellSyntaxError } from "./shell-words.js";

const words = (text: string) => parseCommandLine(text).map((c) => c.words.map((w) => w.value));

describe("parseCommandLine", () => {
  it("splits at &&, ||, ; and |", () => {
    expect(words("pnpm i && pnpm test; dst get x | cat || true")).toEqual([
      ["pnpm", "i"],
      ["pnpm", "test"],
      ["dst", "get", "x"],
      ["cat"],
      ["true"],
    ]);
  });

  it("takes leading assignments as the environment and removes quotes", () => {
    const [command] = parseCommandLine(`RUSTFLAGS="--cfg tokio_unstable" cargo build -p 'a b'`);
    expect(command?.env.get("RUSTFLAGS")).toBe("--cfg tokio_unstable");
    expect(command?.words.map((w) => w.value)).toEqual(["cargo", "build", "-p", "a b"]);
  });

  it("marks words the shell would expand as not literal", () => {
    const [command] = parseCommandLine(`export X=$PWD/t ~/.kube/config '$kept' "$HOME"`);
    expect(command?.words.map((w) => w.literal)).toEqual([true, false, false, true, false]);
  });

  it("refuses an unclosed quote", () => {
    expect(() => parseCommandLine(`grpcurl -d '{"a":1}`)).toThrow(ShellSyntaxError);
  });
});
