// Everything `dst` touches outside itself, injected so tests can drive a whole run: the
// interface, the real process behind it, and the live screen drawn on its stdout.

export interface TextSink {
  write(text: string): void;
}

export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Whether stdout is a terminal: enables redraws and (unless NO_COLOR) colors. */
  readonly isTTY: boolean;
  /** Environment variables (only NO_COLOR is read). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Registers a handler for Ctrl-C (SIGINT); returns a function that removes it. */
  onInterrupt(handler: () => void): () => void;
}

/** The real process: its streams, environment and SIGINT. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    onInterrupt(handler) {
      let presses = 0;
      const listener = () => {
        presses += 1;
        // The first Ctrl-C cancels cleanly; a second one means "stop now".
        if (presses > 1) process.exit(130);
        handler();
      };
      process.on("SIGINT", listener);
      return () => process.off("SIGINT", listener);
    },
  };
}

// Where a live view goes: on a terminal each frame replaces the previous one (cursor home,
// clear screen); otherwise frames are appended, separated by a blank line, with no escape codes.
const HOME_AND_CLEAR = "\x1b[H\x1b[2J";

export class LiveScreen {
  private frames = 0;

  constructor(private readonly io: Pick<CliIo, "stdout" | "isTTY">) {}

  show(frame: string): void {
    const prefix = this.io.isTTY ? HOME_AND_CLEAR : this.frames > 0 ? "\n" : "";
    this.frames += 1;
    this.io.stdout.write(prefix + frame);
  }
}
