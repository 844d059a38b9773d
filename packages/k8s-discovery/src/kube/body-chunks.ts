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
