/**
 * Runtime patches applied inside a server child to measure a proposed change before anyone
 * makes it (`--experiment NAME`). They never touch the sources; results carry the experiment's
 * name in their params.
 */
import type { AddressSet } from "@destination/core";
import type { Update } from "@destination/proto";
import { EndpointTranslator } from "@destination/translators";
import { Counter } from "prom-client";

/**
 * `lean-delivery`: the per-stream work of a fan-out without its two avoidable costs.
 * - prom-client's `Counter.inc(labels)` hashes and validates the label object on every message
 *   (`grpc_server_msg_sent_total`, once per written message). Modelled here as a series bound
 *   once per label object: later increments add to its record directly.
 * - `EndpointTranslator.add/remove` allocate a closure per delivery; modelled as a direct call.
 */
function leanDelivery(): void {
  type Record = { value: number };
  type CounterInternals = {
    hashMap: { [hash: string]: Record | undefined };
    incWithoutExemplar(labels?: object | number, value?: number): { labelHash: string };
  };
  const proto = Counter.prototype as unknown as CounterInternals;
  const inc = proto.incWithoutExemplar;
  const bound = new WeakMap<object, Map<object, { hash: string; record: Record }>>();
  proto.incWithoutExemplar = function incBound(this: CounterInternals, labels, value) {
    if (value !== undefined || labels === undefined || typeof labels !== "object") {
      return inc.call(this, labels, value);
    }
    let series = bound.get(labels);
    const known = series?.get(this);
    if (known !== undefined && this.hashMap[known.hash] === known.record) {
      known.record.value += 1;
      return { labelHash: known.hash };
    }
    const result = inc.call(this, labels, value);
    const record = this.hashMap[result.labelHash];
    if (record !== undefined) {
      if (series === undefined) {
        series = new Map();
        bound.set(labels, series);
      }
      series.set(this, { hash: result.labelHash, record });
    }
    return result;
  };

  type TranslatorInternals = {
    translation: {
      addUpdate(set: AddressSet): Update | undefined;
      removeUpdate(set: AddressSet): Update | undefined;
    };
    sink: { send(update: Update): boolean };
    logger: { error(message: string, fields?: object): void };
  };
  const translator = EndpointTranslator.prototype as unknown as {
    add(this: TranslatorInternals, set: AddressSet): void;
    remove(this: TranslatorInternals, set: AddressSet): void;
  };
  translator.add = function add(set) {
    try {
      const update = this.translation.addUpdate(set);
      if (update !== undefined) this.sink.send(update);
    } catch (err) {
      this.logger.error("failed to translate an endpoints add", { error: String(err) });
    }
  };
  translator.remove = function remove(set) {
    try {
      const update = this.translation.removeUpdate(set);
      if (update !== undefined) this.sink.send(update);
    } catch (err) {
      this.logger.error("failed to translate an endpoints remove", { error: String(err) });
    }
  };
}

export function applyExperiments(names: readonly string[]): void {
  for (const name of names) {
    if (name === "lean-delivery") leanDelivery();
    else throw new Error(`unknown experiment ${name}`);
  }
}
