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
