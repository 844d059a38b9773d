import { finished, type Readable } from "node:stream";

/**
 * Hands each chunk of a body to `onChunk` as it arrives; resolves at the body's end, or as soon
 * as `onChunk` calls `stop` (the rest is not read), and rejects on its error, on a close
 * before the end, or with what `onChunk` threw (the body is destroyed then). Bodies are read
 * this way rather than with `for await`: a stream's async iterator takes everything buffered as
 * one Buffer, so chunks that arrived together were first copied into a new one (on a 20 MB pod
 * list that copying showed in start profiles), and every chunk of a watch went through a
 * promise and a turn of the microtask queue (about 4 % of the CPU of a churn).
 */
export function forEachChunk(
  body: Readable,
  onChunk: (chunk: Buffer, stop: () => void) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const stop = () => {
      stopped = true;
    };
    const onData = (chunk: Buffer) => {
      try {
        onChunk(chunk, stop);
      } catch (err) {
        body.destroy(err as Error);
        return;
      }
      if (!stopped) return;
      body.off("data", onData);
      resolve();
      body.destroy();
    };
    body.on("data", onData);
    finished(body, (err) => {
      if (stopped) return;
      if (err) reject(err);
      else resolve();
    });
  });
}

/**
 * Splits a byte stream into lines of newline-delimited JSON, as a watch response arrives: chunks
 * end anywhere, also inside a line or a multi-byte character, and one chunk may hold many lines.
 * Blank lines are dropped and `\r\n` is accepted.
 */
export class NdjsonLines {
  readonly #decoder = new TextDecoder("utf-8");
  readonly #maxLineChars: number;
  #partial = "";

  /** A line longer than `maxLineChars` is an error (a stream that never ends a line). */
  constructor(maxLineChars = 128 * 1024 * 1024) {
    this.#maxLineChars = maxLineChars;
  }

  /** The lines completed by this chunk. */
  push(chunk: Uint8Array): string[] {
    return this.#split(this.#partial + this.#decoder.decode(chunk, { stream: true }));
  }

  /** The last line, if the stream ended without a newline. */
  end(): string[] {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    return clean(rest) === "" ? [] : [clean(rest)];
  }

  #split(text: string): string[] {
    const parts = text.split("\n");
    this.#partial = parts.pop() ?? "";
    if (this.#partial.length > this.#maxLineChars) {
      this.#partial = "";
      throw new Error(`a watch event line is longer than ${this.#maxLineChars} characters`);
    }
    return parts.map(clean).filter((line) => line !== "");
  }
}

function clean(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1).trim() : line.trim();
}
