/**
 * CPU and heap profiles in pprof format (gzipped `profile.proto`), as Go's `net/http/pprof`
 * serves them, so `go tool pprof` reads them unchanged. Backed by `@datadog/pprof`, which is
 * loaded only when `-enable-pprof=true` asks for it: a server without the flag never loads its
 * native addon.
 */
export interface PprofProfiler {
  /**
   * Samples the process for `seconds` and resolves with the encoded profile. One at a time, as
   * in Go: a second request while one runs rejects with {@link ProfilerBusyError}.
   */
  cpuProfile(seconds: number): Promise<Buffer>;
  /** The sampled live heap (in-use objects and bytes) since the profiler was loaded. */
  heapProfile(): Promise<Buffer>;
  /** Stops heap sampling; a CPU profile that is running still completes. */
  stop(): void;
}

/** A CPU profile is already being taken (Go answers 500 with the same words). */
export class ProfilerBusyError extends Error {
  override readonly name = "ProfilerBusyError";
  constructor() {
    super("cpu profiling already in use");
  }
}

/** Average bytes between heap samples: V8's default for its sampling heap profiler. */
const HEAP_SAMPLE_INTERVAL_BYTES = 512 * 1024;
/** Frames kept per heap sample. */
const HEAP_STACK_DEPTH = 64;
/** Go's CPU profiler samples at 100 Hz; the same rate keeps the overhead comparable. */
const CPU_SAMPLE_INTERVAL_MICROS = 10_000;

/** Loads the profiler and starts sampling the heap (a heap profile covers what came after). */
export async function loadPprofProfiler(): Promise<PprofProfiler> {
  const pprof = await import("@datadog/pprof");
  pprof.heap.start(HEAP_SAMPLE_INTERVAL_BYTES, HEAP_STACK_DEPTH);
  let cpuBusy = false;
  return {
    async cpuProfile(seconds) {
      if (cpuBusy) throw new ProfilerBusyError();
      cpuBusy = true;
      try {
        const profile = await pprof.time.profile({
          durationMillis: seconds * 1000,
          intervalMicros: CPU_SAMPLE_INTERVAL_MICROS,
          // Adds a cpu/nanoseconds sample type beside wall time: what Go's profile measures, and
          // as the last type the one `go tool pprof` shows by default. The library collects CPU
          // time only with contexts on.
          collectCpuTime: true,
          withContexts: true,
        });
        return await pprof.encode(profile);
      } finally {
        cpuBusy = false;
      }
    },
    heapProfile: () => pprof.encode(pprof.heap.profile()),
    stop() {
      pprof.heap.stop();
    },
  };
}

/** Where Go's `net/http/pprof` serves, and so where `go tool pprof` looks. */
export const PPROF_PATH_PREFIX = "/debug/pprof/";

export interface PprofReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/** Go's default and what `go tool pprof` asks for when given no `-seconds`. */
const DEFAULT_CPU_SECONDS = 30;

/** The profiles this server can take; the index lists them. */
const PROFILES: readonly { name: string; description: string }[] = [
  { name: "heap", description: "A sampling of live objects and their bytes since start." },
  { name: "profile", description: "CPU profile; `seconds` sets its length (default 30)." },
];

/** What Go names and this server cannot produce: a clear error instead of a silent 404. */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  allocs: "V8's sampling heap profiler records live objects only; use heap",
  goroutine: "there are no goroutines; profile shows where the event loop spends its time",
  block: "a Go runtime profile with no counterpart in Node.js",
  mutex: "a Go runtime profile with no counterpart in Node.js",
  threadcreate: "a Go runtime profile with no counterpart in Node.js",
  trace: "execution traces are a Go runtime feature",
};

const text = (status: number, message: string): PprofReply => ({
  status,
  headers: {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    // Go marks its pprof errors so that `go tool pprof` prints the body rather than a parse
    // error.
    "x-go-pprof": "1",
  },
  body: `${message}\n`,
});

const profileFile = (name: string, body: Buffer): PprofReply => ({
  status: 200,
  headers: {
    "content-type": "application/octet-stream",
    "content-disposition": `attachment; filename="${name}"`,
  },
  body,
});

/** Go's rule: an integer above zero, anything else means the default. */
function cpuSeconds(query: URLSearchParams): number {
  const value = query.get("seconds");
  if (value === null || !/^[+-]?\d+$/.test(value)) return DEFAULT_CPU_SECONDS;
  const seconds = Number(value);
  return seconds > 0 ? seconds : DEFAULT_CPU_SECONDS;
}

function indexPage(): PprofReply {
  const rows = PROFILES.map(
    ({ name, description }) =>
      `<tr><td><a href="${name}?debug=0">${name}</a></td><td>${description}</td></tr>`,
  ).join("\n");
  return {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8" },
    body: `<html><head><title>/debug/pprof/</title></head><body>
<p>Profiles in pprof format, for <code>go tool pprof http://HOST:PORT/debug/pprof/NAME</code>:</p>
<table>
${rows}
<tr><td><a href="cmdline">cmdline</a></td><td>The command line of this process.</td></tr>
</table>
</body></html>
`,
  };
}

/**
 * Answers a request under {@link PPROF_PATH_PREFIX} as Go's handlers do for the profiles a Node
 * process has (CPU and heap), and with a clear error for the ones it has not.
 */
export async function pprofReply(
  path: string,
  query: URLSearchParams,
  profiler: PprofProfiler,
  argv: readonly string[] = process.argv,
): Promise<PprofReply> {
  const name = path.slice(PPROF_PATH_PREFIX.length);
  switch (name) {
    case "":
      return indexPage();
    case "cmdline":
      // NUL-separated and without a final newline, as Go writes it.
      return { ...text(200, ""), body: argv.join("\x00") };
    case "symbol":
      // Profiles are served symbolized: nothing to look up (Go's way of saying so).
      return text(200, "num_symbols: 0");
    case "profile":
      try {
        return profileFile("profile", await profiler.cpuProfile(cpuSeconds(query)));
      } catch (err) {
        if (err instanceof ProfilerBusyError) {
          return text(500, `Could not enable CPU profiling: ${err.message}`);
        }
        throw err;
      }
    case "heap": {
      const debug = query.get("debug");
      if (debug !== null && debug !== "0") {
        return text(400, "debug text output is not served; read the profile with go tool pprof");
      }
      if (query.has("seconds")) {
        return text(400, "delta heap profiles (seconds) are not served");
      }
      return profileFile("heap", await profiler.heapProfile());
    }
    default: {
      const why = UNAVAILABLE[name];
      return why === undefined
        ? text(404, "Unknown profile")
        : text(404, `Unknown profile: ${name} is not available here (${why})`);
    }
  }
}
