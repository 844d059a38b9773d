// One attacker's TCP connection to the server: raw frames out (with TCP backpressure, so the
// attacker does not buffer its own flood), frames in, and how the server ended it.
import { connect, type Socket } from "node:net";
import { FrameReader, type ReadFrame } from "./frame-reader.js";
import { ERROR_CODE_NAMES, Flag, FrameType, SETTINGS_ACK, Setting } from "./http2-frames.js";

/** How a connection ended, as the attacker saw it. */
export interface ConnectionEnd {
  /** The server's GOAWAY error code name, or null when it sent none. */
  readonly goaway: string | null;
  /** True when the server closed the socket (or reset it) before the attacker did. */
  readonly closedByServer: boolean;
}

export class AttackConnection {
  readonly #socket: Socket;
  readonly #reader = new FrameReader();
  readonly #streamEnds = new Map<number, () => void>();
  #goaway: string | null = null;
  #closedByUs = false;
  #closed = false;
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS, once its SETTINGS arrived. */
  maxConcurrentStreams: number | undefined;
  /** Frames received, by type number. */
  readonly received = new Map<number, number>();
  readonly ended: Promise<ConnectionEnd>;

  readonly #deadline: number;

  private constructor(
    socket: Socket,
    options: { ackSettings: boolean; read: boolean; deadline: number },
  ) {
    this.#socket = socket;
    this.#deadline = options.deadline;
    this.ended = new Promise((resolve) => {
      socket.on("close", () => {
        this.#closed = true;
        for (const end of this.#streamEnds.values()) end();
        resolve({ goaway: this.#goaway, closedByServer: !this.#closedByUs });
      });
    });
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      for (const f of this.#reader.push(chunk)) this.#onFrame(f, options.ackSettings);
    });
    if (!options.read) socket.pause();
  }

  /**
   * Connects to 127.0.0.1:port. `read: false` never reads what the server sends (a client that
   * stopped reading); `ackSettings: false` never acknowledges the server's SETTINGS. A write
   * still waiting for the socket at `deadline` (Date.now()) gives up.
   */
  static open(
    port: number,
    options: { ackSettings?: boolean; read?: boolean; deadline: number },
  ): Promise<AttackConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("connect", () =>
        resolve(
          new AttackConnection(socket, {
            ackSettings: options.ackSettings ?? true,
            read: options.read ?? true,
            deadline: options.deadline,
          }),
        ),
      );
      socket.once("error", reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Writes `bytes`; resolves true once the socket can take more, false when it closed or the
   * server stopped reading until the deadline.
   */
  async write(bytes: Buffer): Promise<boolean> {
    if (this.#closed || this.#socket.destroyed || Date.now() >= this.#deadline) return false;
    if (this.#socket.write(bytes)) return true;
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#socket.off("drain", onDrain);
        this.#socket.off("close", onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, this.#deadline - Date.now()));
      this.#socket.on("drain", onDrain);
      this.#socket.on("close", onClose);
    });
  }

  /** Resolves when the server ends `streamId` (END_STREAM or RST_STREAM) or the connection. */
  streamEnded(streamId: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#streamEnds.set(streamId, resolve));
  }

  /** The attacker leaves: the socket is destroyed at once. */
  close(): void {
    if (!this.#closed) this.#closedByUs = true;
    this.#socket.destroy();
  }

  #onFrame(f: ReadFrame, ackSettings: boolean): void {
    this.received.set(f.type, (this.received.get(f.type) ?? 0) + 1);
    if (f.type === FrameType.SETTINGS && (f.flags & Flag.ACK) === 0) {
      for (let at = 0; at + 6 <= f.payload.length; at += 6) {
        if (f.payload.readUInt16BE(at) === Setting.MAX_CONCURRENT_STREAMS) {
          this.maxConcurrentStreams = f.payload.readUInt32BE(at + 2);
        }
      }
      if (ackSettings) this.#socket.write(SETTINGS_ACK);
    } else if (f.type === FrameType.GOAWAY && f.payload.length >= 8) {
      const code = f.payload.readUInt32BE(4);
      this.#goaway = ERROR_CODE_NAMES[code] ?? `0x${code.toString(16)}`;
    } else if (
      f.type === FrameType.RST_STREAM ||
      ((f.type === FrameType.HEADERS || f.type === FrameType.DATA) && f.flags & Flag.END_STREAM)
    ) {
      this.#streamEnds.get(f.streamId)?.();
      this.#streamEnds.delete(f.streamId);
    }
  }
}
