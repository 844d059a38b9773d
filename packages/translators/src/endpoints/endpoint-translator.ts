import {
  type AddressSet,
  type EndpointsListener,
  type Logger,
  silentLogger,
} from "@destination/core";
import type { Update } from "@destination/proto";
import type { MessageSink } from "../message-sink.js";
import type { ZonedEndpointTranslation } from "./endpoint-translation.js";

/**
 * One Get stream's listener on the endpoints watcher: each `add` or `remove` of an address set
 * becomes at most one `Update` in the stream's sink, in call order. It never blocks and never
 * throws back into the watcher.
 */
export class EndpointTranslator implements EndpointsListener {
  constructor(
    private readonly translation: ZonedEndpointTranslation,
    private readonly sink: MessageSink<Update>,
    private readonly logger: Logger = silentLogger,
  ) {}

  add(set: AddressSet): void {
    this.#send(() => this.translation.addUpdate(set), "add");
  }

  remove(set: AddressSet): void {
    this.#send(() => this.translation.removeUpdate(set), "remove");
  }

  #send(translate: () => Update | undefined, kind: "add" | "remove"): void {
    try {
      const update = translate();
      // A refusal needs no handling here: the server ends the stream and the proxy resyncs.
      if (update !== undefined) this.sink.send(update);
    } catch (err) {
      this.logger.error(`failed to translate an endpoints ${kind}`, {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
