/**
 * Runtime patches applied inside a server child to measure a proposed change before anyone
 * makes it (`--experiment NAME`). They never touch the sources; results carry the experiment's
 * name in their params.
 */
import type { AddressSet } from "@destination/k8s-discovery";
import type { Update } from "@destination/proto";
import {
  EndpointTranslation,
  EndpointTranslator,
  type EndpointTranslatorConfig,
} from "@destination/translators";
import { Counter } from "prom-client";

/**
 * `shared-translation`: what the server would do if every subscriber joining a filter group
 * received the same AddressSet object for the same snapshot (the proposed fix in
 * FilteredListenerGroup.join). Approximated one level down: ZonedEndpointTranslation.addUpdate
 * is memoized by the identity of the set's entries (shared, frozen objects) and its labels, so
 * equal snapshots get the same Update object, which the server then encodes once.
 */
function sharedTranslation(): void {
  const zoned = new EndpointTranslation({} as EndpointTranslatorConfig).forZone("");
  const proto = Object.getPrototypeOf(zoned) as {
    addUpdate(this: object, set: AddressSet): Update | undefined;
  };
  const original = proto.addUpdate;
  const ids = new WeakMap<object, number>();
  let nextId = 1;
  const idOf = (o: object): number => {
    let id = ids.get(o);
    if (id === undefined) {
      id = nextId++;
      ids.set(o, id);
    }
    return id;
  };
  const memos = new WeakMap<object, Map<string, Update | undefined>>();
  const LIMIT = 50_000;
  proto.addUpdate = function addUpdate(set) {
    let memo = memos.get(this);
    if (memo === undefined) {
      memo = new Map();
      memos.set(this, memo);
    }
    let key = JSON.stringify(set.labels);
    for (const entry of set.addresses.values()) key += `,${idOf(entry)}`;
    if (memo.has(key)) return memo.get(key);
    const update = original.call(this, set);
    if (memo.size >= LIMIT) {
      const oldest = memo.keys().next();
      if (oldest.done !== true) memo.delete(oldest.value);
    }
    memo.set(key, update);
    return update;
  };
}

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
    if (name === "shared-translation") sharedTranslation();
    else if (name === "lean-delivery") leanDelivery();
    else throw new Error(`unknown experiment ${name}`);
  }
}
