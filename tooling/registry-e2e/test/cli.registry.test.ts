// @destination/cli and @destination/server as a user gets them: `npx @destination/server` from
// the registry serves a copy of the example manifests (the server README's example), and
// `npx @destination/cli …` asks it, in folders outside the workspace. The CLI's command and the
// table it must print are its README's transcript.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { runOk } from "../src/processes.js";
import { type RunningServer, startServer } from "../src/server.js";
import { ROOT, readmeBlocks, readmeTranscripts, workspacePackage } from "../src/workspace.js";

const registry = inject("registry");
const pkg = workspacePackage("@destination/cli");
const README = join(ROOT, pkg.dir, "README.md");

let server: RunningServer | undefined;

beforeAll(async () => {
  const readme = join(ROOT, workspacePackage("@destination/server").dir, "README.md");
  const command = readmeBlocks(readme)
    .filter((b) => b.info.startsWith("sh"))
    .flatMap((b) => b.body.split("\n"))
    .find((line) => line.startsWith("npx @destination/server "));
  // The README's command, with the test's folder and free ports for its flags' values.
  expect(command).toMatch(
    /^npx @destination\/server --manifests \S+ --addr \S+ --metrics-addr \S+$/,
  );
  server = await startServer(join(registry.dir, "server-npx"), {
    argv: ["npx", "@destination/server"],
    env: registry.env,
  });
});

afterAll(async () => {
  await server?.stop();
});

it("npx @destination/cli get prints the README's table", async () => {
  const running = server as RunningServer;
  const transcripts = readmeTranscripts(README, "npx @destination/cli ");
  expect(transcripts.length).toBeGreaterThan(0);
  const cwd = join(registry.dir, "cli-npx");
  mkdirSync(cwd, { recursive: true });
  for (const { command, output } of transcripts) {
    const result = await runOk([...command, "--addr", running.addr], {
      cwd,
      env: registry.env,
      timeoutMs: 180_000,
    });
    expect(result.stdout.trimEnd().split("\n"), command.join(" ")).toEqual(output);
  }
  const version = await runOk(["npx", pkg.name, "--version"], {
    cwd,
    env: registry.env,
    timeoutMs: 60_000,
  });
  expect(version.stdout.trim()).toBe(`dst ${pkg.version}`);
});
