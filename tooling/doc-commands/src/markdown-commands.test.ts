import { describe, expect, it } from "vitest";
import { extractDocumentedCommands, stripComment } from "./markdown-commands.js";

const README = [
  "# pkg", // 1
  "", // 2
  "```sh", // 3
  "pnpm install            # once", // 4
  "", // 5
  "pnpm exec destination-server --manifests examples \\", // 6
  "  --addr 127.0.0.1:0   # any free port", // 7
  "```", // 8
  "", // 9
  "```ts", // 10
  "pnpm not-a-command()", // 11
  "```", // 12
  "", // 13
  "```console", // 14
  "$ dst get --once web-svc.emojivoto.svc.cluster.local:80", // 15
  "IP  PORT", // 16
  "$ echo $?", // 17
  "4", // 18
  "```", // 19
  "~~~bash", // 20
  'grpcurl -d \'{"a":"#1"}\' localhost:8086 list', // 21
  "~~~~", // 22: a longer fence of the same kind closes it
  "pnpm after-the-block", // 23
].join("\n");

describe("extractDocumentedCommands", () => {
  const commands = extractDocumentedCommands(README, "pkg/README.md");

  it("reads shell blocks line by line, joins continuations and drops comments", () => {
    expect(commands.slice(0, 2)).toEqual([
      { file: "pkg/README.md", line: 4, block: 0, text: "pnpm install" },
      {
        file: "pkg/README.md",
        line: 6,
        block: 0,
        text: "pnpm exec destination-server --manifests examples --addr 127.0.0.1:0",
      },
    ]);
  });

  it("reads only the prompted lines of a console block, not their output", () => {
    expect(commands.filter((c) => c.block === 1).map((c) => [c.line, c.text])).toEqual([
      [15, "dst get --once web-svc.emojivoto.svc.cluster.local:80"],
      [17, "echo $?"],
    ]);
  });

  it("skips other languages and text outside blocks, and reads ~~~ fences", () => {
    const texts = commands.map((c) => c.text);
    expect(texts).not.toContain("pnpm not-a-command()");
    expect(texts).not.toContain("pnpm after-the-block");
    expect(commands.filter((c) => c.block === 2).map((c) => c.text)).toEqual([
      'grpcurl -d \'{"a":"#1"}\' localhost:8086 list',
    ]);
  });
});

describe("stripComment", () => {
  it("keeps a # inside quotes or inside a word", () => {
    expect(stripComment(`echo "a # b" c#d # note`)).toBe(`echo "a # b" c#d`);
    expect(stripComment("# only a comment")).toBe("");
  });
});
