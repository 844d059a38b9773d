// Everything `dst` touches outside itself, injected so tests can drive a whole run.

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
