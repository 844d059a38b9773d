// Ctrl-C while streams are open: cancel each of them (so the server sees a clean RST_STREAM
// CANCEL) and remember it, so the command exits 130.
import type { CliIo } from "../cli-io.js";
import type { DestinationStream } from "../grpc/destination-connection.js";

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
