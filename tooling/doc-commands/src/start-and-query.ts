/**
 * The README's first command for real: `pnpm start` serves the example manifests, `/ready`
 * answers, `dst get` sees an Add and `dst profile` a profile, and SIGTERM stops it with exit 0.
 */
import { type GroupProcess, groupMembers, runToCompletion, spawnInGroup } from "./process-group.js";

export interface RunContext {
  readonly root: string;
  /** argv prefix that runs pnpm (the pnpm running this check, or `pnpm` from PATH). */
  readonly pnpm: readonly string[];
  readonly timeoutMs: number;
}

export interface RunOutcome {
  readonly ok: boolean;
  /** One line: what was seen, or why it failed. */
  readonly detail: string;
  /** The output to show when it failed. */
  readonly output?: string;
}

const SERVICE = "web-svc.emojivoto.svc.cluster.local:80";

export async function startAndQuery(context: RunContext): Promise<RunOutcome> {
  const deadline = Date.now() + context.timeoutMs;
  // Ports 0: the server picks free ones and logs them, so a second checkout (or a server already
  // on :8086) does not collide with this run. Only loopback is listened on and dialled.
  const server = spawnInGroup(
    [...context.pnpm, "start", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    { cwd: context.root },
  );
  const fail = (detail: string): RunOutcome => ({ ok: false, detail, output: server.output() });
  try {
    const ports = await server
      .waitFor(/msg="ready" grpcPort=(\d+) adminPort=(\d+)/, Math.max(0, deadline - Date.now()), {
        in: "output",
      })
      // fail() below says what is missing and shows the output.
      .catch(() => undefined);
    if (ports === undefined) return fail("pnpm start: no ready line before the deadline");
    const [, grpcPort, adminPort] = ports;
    if (!(await pollReady(`http://127.0.0.1:${adminPort}/ready`, deadline))) {
      return fail(`GET /ready on the admin port ${adminPort} did not answer 200`);
    }
    const dst = (args: readonly string[]) =>
      runToCompletion(
        [...context.pnpm, "exec", "dst", ...args, "--addr", `127.0.0.1:${grpcPort}`, SERVICE],
        { cwd: context.root, timeoutMs: Math.max(1000, deadline - Date.now()) },
      );

    const get = await dst(["get", "--once", "-o", "json"]);
    const add = firstJsonLine(get.stdout)?.add as
      | { addrs?: { addr?: { address?: string } }[] }
      | undefined;
    if (get.code !== 0 || add?.addrs === undefined || add.addrs.length === 0) {
      return { ok: false, detail: `dst get: no Add (exit ${get.code})`, output: get.output };
    }
    const profile = await dst(["profile", "--once", "-o", "json"]);
    const fqn = firstJsonLine(profile.stdout)?.fullyQualifiedName;
    if (profile.code !== 0 || fqn !== "web-svc.emojivoto.svc.cluster.local") {
      return {
        ok: false,
        detail: `dst profile: no profile (exit ${profile.code})`,
        output: profile.output,
      };
    }

    const stopped = await stopServer(server, deadline);
    if (!stopped.ok) return fail(stopped.detail);
    const addresses = add.addrs.map((a) => a.addr?.address).join(", ");
    return {
      ok: true,
      detail: `/ready 200; dst get: Add of ${addresses}; dst profile: ${fqn}; SIGTERM: ${stopped.detail}`,
    };
  } finally {
    await server.stop();
  }
}

/** SIGTERM to the server process itself: pnpm does not pass signals on, but exits with its code. */
async function stopServer(
  server: GroupProcess,
  deadline: number,
): Promise<{ ok: boolean; detail: string }> {
  const pgid = server.child.pid as number;
  // The node process of bin/destination-server.js, not the `sh -c` that names it in its script.
  const target = groupMembers(pgid).find((m) => /destination-server\.js/.test(m.cmdline));
  if (target !== undefined) process.kill(target.pid, "SIGTERM");
  // Without /proc, the group as a terminal's kill would: pnpm then ends by the signal.
  else process.kill(-pgid, "SIGTERM");
  // The server's shutdown is bounded by its -shutdown-timeout (10 s).
  const stopBy = Math.min(deadline, Date.now() + 20_000);
  const timeout = new Promise<"timeout">((resolve) =>
    setTimeout(() => resolve("timeout"), Math.max(0, stopBy - Date.now())).unref(),
  );
  const exit = await Promise.race([server.exited, timeout]);
  if (exit === "timeout") {
    return { ok: false, detail: "pnpm start did not exit within 20 s of SIGTERM" };
  }
  if (target !== undefined) {
    return exit.code === 0
      ? { ok: true, detail: "exit 0" }
      : { ok: false, detail: `pnpm start exited ${exit.code ?? exit.signal} after SIGTERM` };
  }
  return exit.code === 0 || exit.signal === "SIGTERM"
    ? { ok: true, detail: `ended by ${exit.signal ?? "exit 0"}` }
    : { ok: false, detail: `pnpm start exited ${exit.code ?? exit.signal} after SIGTERM` };
}

async function pollReady(url: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function firstJsonLine(stdout: string): Record<string, unknown> | undefined {
  const line = stdout.split("\n").find((l) => l.trim().startsWith("{"));
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
