import { describe, expect, it } from "vitest";
import { type PprofProfiler, ProfilerBusyError, pprofReply } from "./pprof.js";

/** Records the length asked for; the profile bytes themselves are the library's. */
function recordingProfiler(): PprofProfiler & { seconds: number[] } {
  const seconds: number[] = [];
  return {
    seconds,
    cpuProfile: async (s) => {
      seconds.push(s);
      return Buffer.from("cpu");
    },
    heapProfile: async () => Buffer.from("heap"),
    stop: () => {},
  };
}

const reply = (path: string, query: string, profiler: PprofProfiler) =>
  pprofReply(path, new URLSearchParams(query), profiler, ["node", "server", "-enable-pprof"]);

describe("pprofReply", () => {
  it("profiles for `seconds` when a positive integer, else Go's default of 30", async () => {
    const profiler = recordingProfiler();
    for (const query of ["seconds=7", "", "seconds=0", "seconds=-3", "seconds=2.5", "seconds=x"]) {
      await reply("/debug/pprof/profile", query, profiler);
    }
    expect(profiler.seconds).toEqual([7, 30, 30, 30, 30, 30]);
  });

  it("sends profiles as Go does: an attachment named after the profile", async () => {
    const profiler = recordingProfiler();
    expect(await reply("/debug/pprof/heap", "", profiler)).toEqual({
      status: 200,
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition": 'attachment; filename="heap"',
      },
      body: Buffer.from("heap"),
    });
    const cpu = await reply("/debug/pprof/profile", "seconds=1", profiler);
    expect(cpu.headers["content-disposition"]).toBe('attachment; filename="profile"');
  });

  it("answers a second CPU profile with Go's 500 and words", async () => {
    const busy = {
      ...recordingProfiler(),
      cpuProfile: () => Promise.reject(new ProfilerBusyError()),
    };
    const answer = await reply("/debug/pprof/profile", "", busy);
    expect([answer.status, answer.body, answer.headers["x-go-pprof"]]).toEqual([
      500,
      "Could not enable CPU profiling: cpu profiling already in use\n",
      "1",
    ]);
  });

  it("refuses the heap forms it cannot produce, and unknown profiles as Go does", async () => {
    const profiler = recordingProfiler();
    expect((await reply("/debug/pprof/heap", "debug=1", profiler)).status).toBe(400);
    expect((await reply("/debug/pprof/heap", "seconds=10", profiler)).status).toBe(400);
    expect((await reply("/debug/pprof/heap", "debug=0", profiler)).status).toBe(200);
    expect(await reply("/debug/pprof/nothing", "", profiler)).toMatchObject({
      status: 404,
      body: "Unknown profile\n",
    });
    expect((await reply("/debug/pprof/trace", "", profiler)).body).toMatch(/execution traces/);
  });

  it("writes the command line NUL-separated without a newline", async () => {
    const answer = await reply("/debug/pprof/cmdline", "", recordingProfiler());
    expect(answer.body).toBe("node\0server\0-enable-pprof");
  });
});
