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
