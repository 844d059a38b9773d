/**
 * Where a translator puts the messages of one stream. The server backs it with the stream's
 * bounded queue (README "Sinks").
 */
export interface MessageSink<T> {
  /**
   * Enqueues one message without blocking. Returns false when the queue refused it (it was full
   * or the stream has ended); the server counts that overflow and ends the stream, so the
   * translator only has to stop relying on the message having been sent.
   */
  send(message: T): boolean;
}
