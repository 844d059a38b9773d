import { spawn } from "node:child_process";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ProcessCpu } from "./process-cpu.js";

/**
 * A child process that, for every line it reads, keeps a core busy until it has used 3 ms more
 * CPU, then answers and waits idle: read between two answers, its threads are not running, and
 * the kernel's account of them is exact.
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

describe.runIf(process.platform === "linux")("ProcessCpu", () => {
  it("counts a 3 ms burst of another process as about 3 ms, not as 0 or 10 ms ticks", async () => {
    const child = spawn(process.execPath, ["-e", BURNER], { stdio: ["pipe", "pipe", "inherit"] });
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
      const cpu = new ProcessCpu(child.pid as number);
      // Warm the child's code path once, then measure bursts while it waits in between.
      child.stdin.write("go\n");
      await next();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = cpu.totalMs();
      if (before === undefined) return; // a kernel without schedstat: the bench reads ticks
      const deltas: number[] = [];
      let last = before;
      for (let i = 0; i < 3; i++) {
        child.stdin.write("go\n");
        expect(await next()).toBe("done");
        await new Promise((resolve) => setTimeout(resolve, 50));
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
    const worker = new Worker(
      "const u0 = process.cpuUsage(); let x = 0; while (process.cpuUsage(u0).user < 30000) x++; require('node:worker_threads').parentPort.postMessage(x);",
      { eval: true },
    );
    await new Promise((resolve) => worker.once("message", resolve));
    const withWorker = cpu.totalMs();
    if (withWorker === undefined) return;
    await worker.terminate();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cpu.totalMs()).toBeGreaterThanOrEqual(withWorker);
  });

  it("is undefined for a process that is gone", () => {
    expect(new ProcessCpu(2 ** 30).totalMs()).toBeUndefined();
    expect(new ProcessCpu(2 ** 30).mainThreadMs()).toBeUndefined();
  });
});
