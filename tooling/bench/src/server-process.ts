/**
 * A destination server as a process of its own, the way it runs in a cluster: our binary
 * (`apps/destination-server/bin/destination-server.js`) or upstream's Go controller
 * (`$DESTINATION_UPSTREAM_BIN destination`), with the same flags. CPU and RSS come from
 * `/proc/<pid>`, which counts every thread of either runtime alike.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { ProcessCpu } from "./process-cpu.js";
import { sleep } from "./scenarios/common.js";
import { monotonicUs } from "./scenarios/profile-report.js";

export type ServerKind = "ours" | "upstream";

const OUR_BIN = fileURLToPath(
  new URL("../../../apps/destination-server/bin/destination-server.js", import.meta.url),
);

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface ServerProcess {
  readonly kind: ServerKind;
  readonly pid: number;
  readonly grpcPort: number;
  readonly adminPort: number;
  /** Wall time from spawn to the first 200 from `/ready`, ms. */
  readonly readyMs: number;
  /** CPU (user + system) the process had used when it turned ready, ms. */
  readonly readyCpuMs: number;
  /** The part of `readyCpuMs` used by the process's first thread. */
  readonly readyMainThreadCpuMs: number;
  /** Spawn and the first 200 from `/ready` on the clock of V8's CPU profiles, µs. */
  readonly spawnedAtUs: number;
  readonly readyAtUs: number;
  cpuMs(): number;
  rssMb(): number;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  readonly kind: ServerKind;
  readonly kubeconfig: string;
  /** Where the child's stdout and stderr go. */
  readonly logFile: string;
  readonly upstreamBin?: string;
  readonly timeoutMs?: number;
  /**
   * Ours only: write a V8 CPU profile of the whole run into this folder (`node --cpu-prof`);
   * `stop()` then ends the server with SIGTERM, so that the profile is written.
   */
  readonly cpuProfDir?: string;
  /** Flags after the common ones (a later flag wins), e.g. `-audit-interval=10s`. */
  readonly extraFlags?: readonly string[];
}

/** Flags every one of our servers gets after the common ones (`--ours-flag`). */
let oursFlags: readonly string[] = [];

export function setOursFlags(flags: readonly string[]): void {
  oursFlags = flags;
}

/** Starts a server and resolves once its admin port answers `/ready` with 200. */
export async function startServerProcess(options: StartServerOptions): Promise<ServerProcess> {
  const [grpcPort, adminPort] = [await freePort(), await freePort()];
  // Upstream's flags; ours accepts the same ones.
  const flags = [
    `-kubeconfig=${options.kubeconfig}`,
    `-addr=127.0.0.1:${grpcPort}`,
    `-metrics-addr=127.0.0.1:${adminPort}`,
    "-controller-namespace=linkerd",
    "-identity-trust-domain=cluster.local",
    "-cluster-domain=cluster.local",
    "-enable-endpoint-slices=true",
    "-log-level=warn",
    ...(options.kind === "ours" ? oursFlags : []),
    ...(options.extraFlags ?? []),
  ];
  let child: ChildProcess;
  const spawnedAtUs = monotonicUs();
  if (options.kind === "ours") {
    const nodeArgs =
      options.cpuProfDir === undefined
        ? []
        : ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`];
    child = spawn(process.execPath, [...nodeArgs, OUR_BIN, ...flags], {
      stdio: ["ignore", "pipe", "pipe"],
      env: podEnv(),
    });
  } else {
    if (options.upstreamBin === undefined) throw new Error("bench: no upstream binary");
    child = spawn(options.upstreamBin, ["destination", ...flags], {
      stdio: ["ignore", "pipe", "pipe"],
      env: podEnv(),
    });
  }
  const t0 = performance.now();
  const log = createWriteStream(options.logFile, { flags: "a" });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`bench: ${options.kind} server did not start`);
  const cpu = new ProcessCpu(pid);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = `exited (${signal ?? code})`;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited === undefined && options.cpuProfDir !== undefined && options.kind === "ours") {
      child.kill("SIGTERM");
      await Promise.race([exit, sleep(30_000)]);
    }
    if (exited === undefined) {
      child.kill("SIGKILL");
      await exit;
    }
    log.end();
  };
  const deadline = t0 + (options.timeoutMs ?? 120_000);
  let readyMs = 0;
  let readyCpuMs = 0;
  let readyMainThreadCpuMs = 0;
  let readyAtUs = 0;
  for (;;) {
    if (exited !== undefined) {
      await stop();
      const tail = readFileSync(options.logFile, "utf8").trimEnd().split("\n").slice(-5);
      throw new Error(`bench: the ${options.kind} server ${exited}:\n${tail.join("\n")}`);
    }
    if (await isReady(adminPort)) {
      readyMs = performance.now() - t0;
      readyAtUs = monotonicUs();
      readyCpuMs = procCpuMs(pid);
      readyMainThreadCpuMs = mainThreadCpuMs(pid);
      break;
    }
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`bench: the ${options.kind} server was not ready in time`);
    }
    await sleep(5);
  }
  return {
    kind: options.kind,
    pid,
    grpcPort,
    adminPort,
    readyMs,
    readyCpuMs,
    readyMainThreadCpuMs,
    spawnedAtUs,
    readyAtUs,
    // Deltas of a phase: to the nanosecond where the kernel keeps schedstat.
    cpuMs: () => cpu.totalMs() ?? procCpuMs(pid),
    rssMb: () => procRssMb(pid),
    stop,
  };
}

/**
 * What a pod gives both servers: their ExternalWorkload controllers name the Lease holder after
 * the pod (`HOSTNAME`), and each refuses to start without one, so both run it, as in a cluster.
 */
function podEnv(): NodeJS.ProcessEnv {
  return { ...process.env, HOSTNAME: process.env.HOSTNAME || "destination-bench" };
}

async function isReady(adminPort: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${adminPort}/ready`);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * utime + stime of `/proc/<pid>/stat`, in ms: every thread the process ever had, in 10 ms ticks.
 * Absolute readings (CPU to ready) use it; deltas use `ProcessCpu`.
 */
export function procCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * The CPU of the process's first thread alone, in ms (its schedstat run time, or utime + stime
 * where there is none). For node that is the JavaScript thread; the rest of `procCpuMs` is V8's
 * compiler and GC threads and libuv's pool.
 */
export function mainThreadCpuMs(pid: number): number {
  return new ProcessCpu(pid).mainThreadMs() ?? statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * How long the process's first thread was ready to run but waiting for a core, in ms (the second
 * field of its `schedstat`); undefined where the kernel keeps no such account.
 */
export function mainThreadRunQueueWaitMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ");
    const waitNs = Number(fields[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

function statCpuMs(path: string): number {
  const stat = readFileSync(path, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** VmRSS of `/proc/<pid>/status`, in MiB. */
export function procRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** VmHWM of `/proc/<pid>/status` (the peak RSS since the start or the last reset), in MiB. */
export function procPeakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * Resets VmHWM to the current RSS (`5` to `/proc/<pid>/clear_refs`, Linux 4.0+), so that the
 * next read of `procPeakRssMb` is the peak since now; false where the kernel refuses.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * Ours only: V8's heap spaces (committed MiB, by space) and node's external memory, read from
 * prom-client's default metrics on `/metrics`. Says where an RSS goes.
 */
export async function heapSpacesMb(adminPort: number): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${adminPort}/metrics`);
  const text = await res.text();
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const space = /^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)/.exec(line);
    if (space !== null) out[space[1] as string] = Number(space[2]) / 2 ** 20;
    const external = /^nodejs_external_memory_bytes (\S+)/.exec(line);
    if (external !== null) out.external = Number(external[1]) / 2 ** 20;
  }
  return out;
}
