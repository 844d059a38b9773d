import { readFileSync } from "node:fs";
import { eventually } from "@destination/vitest-config/eventually";
import { describe, expect, it } from "vitest";
import { groupMembers, runToCompletion, spawnInGroup } from "./process-group.js";

/** A node process that starts an idle child, prints the child's pid, and idles too. */
const PARENT_OF_IDLE_CHILD = `
const child = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
console.log("child " + child.pid);
setInterval(() => {}, 1000);
`;

/** Whether a pid is a live process (a zombie awaiting its parent's wait counts as ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("process groups", () => {
  it("ends a command and the processes it started, by the group", async () => {
    const proc = spawnInGroup([process.execPath, "-e", PARENT_OF_IDLE_CHILD], {
      cwd: process.cwd(),
    });
    const pgid = proc.child.pid as number;
    const childPid = await eventually(() => {
      const m = /child (\d+)/.exec(proc.output());
      if (!m) throw new Error("no child pid printed yet");
      return Number(m[1]);
    });
    expect(groupMembers(pgid).map((m) => m.pid)).toEqual(expect.arrayContaining([pgid, childPid]));

    await proc.stop();

    expect((await proc.exited).signal).toBe("SIGTERM");
    await eventually(() => expect(alive(childPid)).toBe(false));
    expect(groupMembers(pgid)).toEqual([]);
  });

  it("waits for a line of output, and fails with the output when the command exits without it", async () => {
    const proc = spawnInGroup(
      [process.execPath, "-e", "console.error('warming up'); console.log('ready on 8080')"],
      { cwd: process.cwd() },
    );
    expect((await proc.waitFor(/ready on (\d+)/, 60_000))[1]).toBe("8080");
    await expect(proc.waitFor(/never printed/, 60_000, { in: "output" })).rejects.toThrow(
      /exited before printing \/never printed\/:\n[\s\S]*warming up/,
    );
  });

  it("reports a timeout when the command does not end by itself", async () => {
    const done = await runToCompletion([process.execPath, "-e", "setInterval(() => {}, 1000)"], {
      cwd: process.cwd(),
      timeoutMs: 500,
    });
    expect(done.timedOut).toBe(true);
    expect(done.code).toBeNull();
  });

  it("passes the exit code and the output through", async () => {
    const done = await runToCompletion(
      [process.execPath, "-e", "console.log('out'); console.error('err'); process.exit(3)"],
      { cwd: process.cwd(), timeoutMs: 60_000 },
    );
    expect(done).toMatchObject({ code: 3, timedOut: false, stdout: "out\n" });
    expect(done.output).toContain("err");
  });
});
