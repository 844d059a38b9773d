// How a command's streams end: Ctrl-C cancels them, and each end becomes the exit code.

// Ctrl-C while streams are open: cancel each of them (so the server sees a clean RST_STREAM
// CANCEL) and remember it, so the command exits 130.
import type { CliIo } from "../cli-io.js";
import { ExitCode } from "../exit-code.js";
import type { DestinationStream, StreamEnd } from "../grpc/destination-connection.js";

export class InterruptGuard {
  interrupted = false;
  private readonly streams = new Set<DestinationStream>();
  private readonly removeHandler: () => void;
  private readonly wakers = new Set<() => void>();

  constructor(io: Pick<CliIo, "onInterrupt">) {
    this.removeHandler = io.onInterrupt(() => {
      this.interrupted = true;
      for (const stream of this.streams) stream.cancel();
      for (const wake of this.wakers) wake();
    });
  }

  /** Waits `ms`, or less when Ctrl-C comes first. */
  sleep(ms: number): Promise<void> {
    if (this.interrupted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  track(stream: DestinationStream): DestinationStream {
    this.streams.add(stream);
    if (this.interrupted) stream.cancel();
    return stream;
  }

  release(): void {
    this.removeHandler();
  }
}

// How a watched stream's end becomes the process's exit code and last words.
export const SERVER_CLOSED_NOTE =
  "the server ended the stream with status OK (it does so when a client falls behind, " +
  "or when it shuts down); run the command again to resubscribe";

export function exitCodeForEnd(
  end: StreamEnd,
  interrupted: boolean,
  io: Pick<CliIo, "stderr">,
): ExitCode {
  if (interrupted) return ExitCode.interrupted;
  switch (end.kind) {
    case "cancelled":
      return ExitCode.ok;
    case "closed-by-server":
      io.stderr.write(`dst: ${SERVER_CLOSED_NOTE}\n`);
      return ExitCode.ok;
    case "failed":
      io.stderr.write(`dst: ${end.failure.message}\n`);
      return end.failure.exitCode;
  }
}
