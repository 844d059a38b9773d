import { describe, expect, it } from "vitest";
import { type CheckContext, checkDocumentedCommands } from "./check-commands.js";
import { extractDocumentedCommands } from "./markdown-commands.js";
import { type FlagSpec, gnuSpec, parseGoUsage } from "./program-flags.js";
import type { Workspace, WorkspacePackage } from "./workspace.js";

/** A repository like this one, small: a root, two packages, a few files. */
function fixtureWorkspace(
  change: { rootScripts?: Record<string, string>; files?: string[] } = {},
): Workspace {
  const pkg = (
    name: string,
    dir: string,
    scripts: Record<string, string>,
    bins: string[] = [],
  ): WorkspacePackage => ({ name, dir, scripts, bins: new Set(bins) });
  const files = new Set(
    change.files ?? [
      "examples",
      "examples/emojivoto.yaml",
      "tooling",
      "tooling/scripts",
      "tooling/scripts/soak.mjs",
      "tooling/integration",
      "tooling/integration/test",
      "tooling/integration/test/relist.int.test.ts",
    ],
  );
  return {
    root: pkg(
      "destination-monorepo",
      "",
      change.rootScripts ?? { "test:unit": "turbo run test", soak: "node soak.mjs", build: "x" },
      ["turbo", "dst", "destination-server"],
    ),
    packages: [
      pkg("@destination/integration", "tooling/integration", { "test:integration": "vitest" }, [
        "vitest",
      ]),
      pkg("@destination/proto", "packages/proto", { build: "tsup", generate: "buf generate" }),
    ],
    pnpmVersion: "12.4.2",
    exists: (path) => path === "" || path === "." || files.has(path),
  };
}

const flags = new Map<string, FlagSpec | Error>([
  ["destination-server", parseGoUsage("  -manifests string\n  -addr string\n  -enable-ipv6\n")],
  ["dst", gnuSpec("  --addr HOST:PORT  address\n  -o, --output F\n")],
  ["pnpm soak", gnuSpec("usage: pnpm soak [--cycles=N] [--subscriptions=N]\n")],
]);

const README = `# fixture

\`\`\`sh
npx -y pnpm@12.4.2 install --frozen-lockfile && pnpm test:unit
pnpm soak --cycles=3                            # short form
pnpm -F @destination/integration exec vitest run test/relist.int.test.ts
pnpm turbo run build --filter=@destination/proto...
pnpm exec destination-server --manifests examples -enable-ipv6=false
node tooling/scripts/soak.mjs --subscriptions=2000
dst --addr 127.0.0.1:8086 -o json
\`\`\`

\`\`\`sh
git clone https://example.invalid/upstream && cd upstream
cargo build --bin does-not-matter
\`\`\`
`;

function problemsOf(readme: string, workspace: Workspace, programFlags = flags) {
  const context: CheckContext = { workspace, flags: programFlags };
  const commands = extractDocumentedCommands(readme, "README.md");
  return checkDocumentedCommands(commands, context)
    .filter((c) => c.problems.length > 0)
    .map((c) => `${c.command.line}: ${c.problems.join("; ")}`);
}

describe("checkDocumentedCommands", () => {
  it("passes a README whose commands all name what exists", () => {
    expect(problemsOf(README, fixtureWorkspace())).toEqual([]);
  });

  it("fails a command whose root script was renamed", () => {
    const workspace = fixtureWorkspace({
      rootScripts: { "unit-tests": "x", soak: "x", build: "x" },
    });
    expect(problemsOf(README, workspace)).toEqual([
      '4: no script "test:unit" in package.json (root), and no pnpm command or binary of that name',
    ]);
  });

  it("fails a filter that names no package, and a package script that does not exist", () => {
    const readme = [
      "```sh",
      "pnpm -F @destination/protoo generate",
      "pnpm -F @destination/proto generat",
      "pnpm turbo run biuld --filter=@destination/nope",
      "```",
    ].join("\n");
    expect(problemsOf(readme, fixtureWorkspace())).toEqual([
      "2: no workspace package named @destination/protoo (--filter @destination/protoo)",
      '3: no script "generat" in packages/proto/package.json, and no pnpm command or binary of that name',
      '4: turbo: no workspace package named @destination/nope (--filter @destination/nope); turbo run biuld: no workspace package has a script "biuld"',
    ]);
  });

  it("fails a file that moved", () => {
    const workspace = fixtureWorkspace({
      files: ["examples", "tooling", "tooling/integration", "tooling/integration/test"],
    });
    expect(problemsOf(README, workspace)).toEqual([
      "6: test/relist.int.test.ts: no such file or folder",
      "9: node tooling/scripts/soak.mjs: no such file",
    ]);
  });

  it("fails flags the programs do not accept", () => {
    const readme = [
      "```console",
      "$ dst --adr 127.0.0.1:1",
      "output",
      "$ pnpm soak --cycle=3",
      "$ destination-server -enable-ipv7",
      "```",
    ].join("\n");
    expect(problemsOf(readme, fixtureWorkspace())).toEqual([
      "2: dst has no flag --adr",
      "4: pnpm soak has no flag --cycle",
      "5: destination-server has no flag -enable-ipv7",
    ]);
  });

  it("fails a pnpm version other than the pinned one, and an unknown program", () => {
    const readme = "```sh\nnpx -y pnpm@11.0.0 install\npnmp test:unit\n```\n";
    expect(problemsOf(readme, fixtureWorkspace())).toEqual([
      "2: npx runs pnpm@11.0.0, but package.json pins pnpm@12.4.2",
      "3: unknown program pnmp (a typo, or add it to the check's known programs)",
    ]);
  });

  it("checks that a script run by its path is in the repository", () => {
    const readme = "```sh\ntooling/scripts/soak.mjs --x\ntooling/scripts/soakk.mjs\n```\n";
    expect(problemsOf(readme, fixtureWorkspace())).toEqual([
      "3: tooling/scripts/soakk.mjs: no such file",
    ]);
  });

  it("says so when a program's flags could not be read", () => {
    const broken = new Map(flags);
    broken.set("dst", new Error("node apps/cli/bin/dst.js --help exited 1"));
    expect(problemsOf("```sh\ndst --addr x:1\n```\n", fixtureWorkspace(), broken)).toEqual([
      "2: cannot read the flags of dst: node apps/cli/bin/dst.js --help exited 1",
    ]);
  });

  it("notes what it does not run, and leaves paths after a cd out of the repository alone", () => {
    const checks = checkDocumentedCommands(extractDocumentedCommands(README, "README.md"), {
      workspace: fixtureWorkspace(),
      flags,
    });
    const clone = checks.find((c) => c.command.text.startsWith("git clone"));
    expect(clone?.notes).toEqual([
      "git is not run: it needs the network or changes a checkout",
      "after cd upstream: outside the repository, paths not checked",
    ]);
    expect(checks.find((c) => c.command.text.startsWith("cargo"))?.notes).toEqual([
      "cargo is not run: it needs Rust and minutes of build",
    ]);
  });
});
