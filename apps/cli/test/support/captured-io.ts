// A CliIo for tests: records what is written, lets a test wait for output (event driven, no
// sleeps) and press Ctrl-C.
import type { CliIo } from "../../src/cli-io.js";

export class CapturedIo implements CliIo {
  out = "";
  err = "";
  readonly isTTY: boolean;
  readonly env: Record<string, string | undefined>;
  private readonly interruptHandlers = new Set<() => void>();
  private readonly waiters = new Set<() => void>();

  constructor(options: { isTTY?: boolean; env?: Record<string, string | undefined> } = {}) {
    this.isTTY = options.isTTY ?? false;
    this.env = options.env ?? {};
  }

  readonly stdout = {
    write: (text: string) => {
      this.out += text;
      for (const wake of [...this.waiters]) wake();
    },
  };

  readonly stderr = {
    write: (text: string) => {
      this.err += text;
      for (const wake of [...this.waiters]) wake();
    },
  };

  onInterrupt(handler: () => void): () => void {
    this.interruptHandlers.add(handler);
    return () => this.interruptHandlers.delete(handler);
  }

  /** Whether a run has a Ctrl-C handler installed (it removes it when done). */
  get listensForInterrupt(): boolean {
    return this.interruptHandlers.size > 0;
  }

  interrupt(): void {
    for (const handler of [...this.interruptHandlers]) handler();
  }

  /** Resolves once `predicate(stdout, stderr)` holds. */
  until(predicate: (out: string, err: string) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(this.out, this.err)) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }
}
