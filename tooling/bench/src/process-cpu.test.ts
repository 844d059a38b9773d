import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ProcessCpu } from "./process-cpu.js";

/**
 * A child process that, for every line it reads, keeps a core busy until it has used 3 ms more
 * CPU, then answers and waits idle: read between two answers, its threads are not running, and
 * the kernel's account of them is exact. It runs with V8's `--single-threaded`: otherwise V8's
 * own threads (compiling the loop, marking) may run beside a burst on a loaded machine, and the
 * process then spends more than the 3 ms the burst counts.
 */
const BURNER = `
const rl = require("node:readline").createInterface({ input: process.stdin });
rl.on("line", () => {
  const u0 = process.cpuUsage();
  for (;;) { const u = process.cpuUsage(u0); if (u.user + u.system >= 3000) break; }
  process.stdout.write("done\\n");
});
process.stdout.write("ready\\n");
`;

/**
 * Resolves once no thread of `pid` is running or waiting for a core (none in state R): its CPU
 * time stays put until it is woken. A reading that merely stops moving is not enough on a loaded
 * machine, where a runnable thread may wait for a core a long time.
 */
async function idle(pid: number): Promise<void> {
  const running = () =>
    readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        // The state follows the command name, which is in parentheses and may hold spaces.
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "R";
      } catch {
        return false; // the thread exited
      }
    });
  await expect.poll(running, { interval: 5, timeout: 10_000 }).toBe(false);
}

/** This process's thread ids. */
function ownThreads(): Set<string> {
  return new Set(readdirSync("/proc/self/task"));
}

describe.runIf(process.platform === "linux")("ProcessCpu", () => {
  it("counts a 3 ms burst of another process as about 3 ms, not as 0 or 10 ms ticks", async () => {
    const child = spawn(process.execPath, ["--single-threaded", "-e", BURNER], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const pid = child.pid as number;
    try {
      child.stdout.setEncoding("utf8");
      const answers: string[] = [];
      const next = async () => {
        while (answers.length === 0) {
          const [chunk] = (await once(child.stdout, "data")) as [string];
          answers.push(...chunk.split("\n").filter(Boolean));
        }
        return answers.shift();
      };
      expect(await next()).toBe("ready");
      const cpu = new ProcessCpu(pid);
      // Warm the child's code path once, then measure bursts while it waits in between.
      child.stdin.write("go\n");
      await next();
      await idle(pid);
      const before = cpu.totalMs();
      if (before === undefined) return; // a kernel without schedstat: the bench reads ticks
      const deltas: number[] = [];
      let last = before;
      for (let i = 0; i < 3; i++) {
        child.stdin.write("go\n");
        expect(await next()).toBe("done");
        await idle(pid);
        const now = cpu.totalMs() as number;
        deltas.push(now - last);
        last = now;
      }
      for (const delta of deltas) {
        expect(delta).toBeGreaterThan(2.5);
        expect(delta).toBeLessThan(8);
      }
    } finally {
      child.kill();
    }
  });

  it("never goes back when a thread that ran exits", async () => {
    const cpu = new ProcessCpu(process.pid);
    const threadsBefore = ownThreads();
    // The worker burns 30 ms, says so, and stays (its port keeps it) until it is terminated, so
    // its thread is read alive before it exits.
    const worker = new Worker(
      "const { parentPort } = require('node:worker_threads'); const u0 = process.cpuUsage(); let x = 0; while (process.cpuUsage(u0).user < 30000) x++; parentPort.on('message', () => {}); parentPort.postMessage(x);",
      { eval: true },
    );
    await new Promise((resolve) => worker.once("message", resolve));
    const workerThreads = [...ownThreads()].filter((tid) => !threadsBefore.has(tid));
    expect(workerThreads.length).toBeGreaterThan(0);
    const withWorker = cpu.totalMs();
    if (withWorker === undefined) return;
    await worker.terminate();
    // Read again only once a thread the worker brought has exited.
    await expect
      .poll(() => workerThreads.some((tid) => !ownThreads().has(tid)), { timeout: 5_000 })
      .toBe(true);
    expect(cpu.totalMs()).toBeGreaterThanOrEqual(withWorker);
  });

  it("is undefined for a process that is gone", () => {
    expect(new ProcessCpu(2 ** 30).totalMs()).toBeUndefined();
    expect(new ProcessCpu(2 ** 30).mainThreadMs()).toBeUndefined();
  });
});
