#!/usr/bin/env node
// Runs the README's test command with CPU load beside it, as happens whenever a benchmark or
// another build shares the machine, so races between a test and the server it waits on show up
// here rather than by chance in CI. The load is stopped by its PIDs at the end, pass or fail.
//
//   pnpm test:loaded              one busy loop per core beside the test command
//   pnpm test:loaded --one-core   the test command and one busy loop both pinned to core 0
//
// The busy loops are `stress-ng --cpu` where it is installed (Debian's stress-ng), else node
// processes spinning on their own; either way each stops by itself after `--max-minutes`.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const args = process.argv.slice(2);
const oneCore = args.includes("--one-core");
const maxMinutesArg = args.find((a) => a.startsWith("--max-minutes="));
const maxMinutes = maxMinutesArg ? Number(maxMinutesArg.split("=")[1]) : 60;

/** The command under the README's "# run the tests" line, so this runs what CI runs. */
function readmeTestCommand() {
  const lines = readFileSync(join(root, "README.md"), "utf8").split("\n");
  const at = lines.findIndex((line) => line.trim() === "# run the tests");
  const command = at >= 0 ? lines[at + 1]?.trim() : undefined;
  if (!command) throw new Error('README.md has no command under "# run the tests"');
  return command;
}

function hasCommand(name) {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/** Starts `count` busy loops (pinned to core 0 when asked); returns their child processes. */
function startLoad(count) {
  const pin = oneCore ? ["taskset", "-c", "0"] : [];
  const seconds = Math.round(maxMinutes * 60);
  if (hasCommand("stress-ng")) {
    const [cmd, ...rest] = [
      ...pin,
      "stress-ng",
      "--cpu",
      String(count),
      "--timeout",
      `${seconds}s`,
      "--quiet",
    ];
    return [spawn(cmd, rest, { stdio: "ignore" })];
  }
  const spin = `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end) {}`;
  return Array.from({ length: count }, () => {
    const [cmd, ...rest] = [...pin, process.execPath, "-e", spin];
    return spawn(cmd, rest, { stdio: "ignore" });
  });
}

const command = readmeTestCommand();
const loops = oneCore ? 1 : availableParallelism();
const load = startLoad(loops);
const stopLoad = () => {
  for (const child of load) if (child.exitCode === null) child.kill("SIGKILL");
};
process.on("SIGINT", stopLoad);
process.on("SIGTERM", stopLoad);

const started = Date.now();
console.log(
  `test:loaded: ${loops} busy loop(s)${oneCore ? " on core 0, tests pinned to core 0" : ""} ` +
    `(pids ${load.map((c) => c.pid).join(", ")}); running: ${command}`,
);
const testArgv = oneCore ? ["taskset", "-c", "0", "sh", "-c", command] : ["sh", "-c", command];
const tests = spawn(testArgv[0], testArgv.slice(1), { cwd: root, stdio: "inherit" });
tests.on("exit", (code, signal) => {
  stopLoad();
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`test:loaded: finished in ${minutes} min, exit ${code ?? signal}`);
  process.exit(code ?? 1);
});
