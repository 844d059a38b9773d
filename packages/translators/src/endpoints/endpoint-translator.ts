// Get: address sets in, `Update` messages out. `EndpointTranslation` and its per-zone
// `ZonedEndpointTranslation` are shared by every stream of one configuration and translate each
// snapshot once; `EndpointTranslator` is one stream's listener that sends their result.
import {
  type Address,
  type AddressSet,
  type EndpointsListener,
  externalWorkloadOpaquePorts,
  type Logger,
  podOpaquePorts,
  silentLogger,
} from "@destination/core";
import {
  AddrSetSchema,
  create,
  type TcpAddress,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSetSchema,
} from "@destination/proto";
import {
  type EndpointTranslatorConfig,
  type MessageSink,
  type TranslationCounter,
  uncountedTranslations,
} from "../contracts.js";
import { compareEncodedAddresses, type EncodedAddress, encodeAddress } from "./tcp-address.js";
import {
  externalWorkloadWeightedAddr,
  podlessWeightedAddr,
  podWeightedAddr,
} from "./weighted-addr.js";

/**
 * Get translation for one server configuration, shared by every stream that uses it. It hands
 * out one `ZonedEndpointTranslation` per caller zone, so that streams in the same zone share
 * their translated messages.
 */
export class EndpointTranslation {
  readonly #zones = new Map<string, ZonedEndpointTranslation>();

  constructor(
    readonly config: EndpointTranslatorConfig,
    private readonly logger: Logger = silentLogger,
    private readonly counter: TranslationCounter = uncountedTranslations,
  ) {}

  /**
   * The translation for callers whose node is in `zone` (the Node label
   * `topology.kubernetes.io/zone`; "" when the node or label is unknown). Always the same
   * object for the same zone.
   */
  forZone(zone: string): ZonedEndpointTranslation {
    let zoned = this.#zones.get(zone);
    if (zoned === undefined) {
      zoned = new ZonedEndpointTranslation(this.config, zone, this.logger, this.counter);
      this.#zones.set(zone, zoned);
    }
    return zoned;
  }
}

/**
 * Address sets → `Update` messages for callers in one zone (zone is the only per-caller input of
 * Get translation). Results are memoized by the identity of the `AddressSet`: the
 * endpoints watcher hands the same frozen snapshot to every stream of a filter group, so 10k
 * streams cost one translation and receive the same `Update` object, which the server can then
 * encode once. Returned messages are shared: never mutate them.
 */
export class ZonedEndpointTranslation {
  // `null` remembers "nothing to send" so that a set whose addresses all fail is not retried
  // (and logged) once per stream.
  readonly #adds = new WeakMap<AddressSet, Update | null>();
  readonly #removes = new WeakMap<AddressSet, Update | null>();

  constructor(
    readonly config: EndpointTranslatorConfig,
    readonly zone: string,
    private readonly logger: Logger = silentLogger,
    private readonly counter: TranslationCounter = uncountedTranslations,
  ) {}

  /**
   * `Update{add}` for the set's addresses, with the set's labels, or undefined when no address
   * could be translated (unlike upstream, an empty add is not sent).
   */
  addUpdate(set: AddressSet): Update | undefined {
    let update = this.#adds.get(set);
    if (update === undefined) {
      update = this.#translateAdd(set);
      this.#adds.set(set, update);
      this.counter.translated("add");
    }
    return update ?? undefined;
  }

  /** `Update{remove}` with the addresses only, or undefined when none can be encoded. */
  removeUpdate(set: AddressSet): Update | undefined {
    let update = this.#removes.get(set);
    if (update === undefined) {
      update = this.#translateRemove(set);
      this.#removes.set(set, update);
      this.counter.translated("remove");
    }
    return update ?? undefined;
  }

  #translateAdd(set: AddressSet): Update | null {
    const built: { addr: WeightedAddr; ipBytes: Uint8Array; port: number }[] = [];
    for (const { address } of set.addresses.values()) {
      const encoded = this.#encode(address);
      if (encoded === undefined) continue;
      try {
        built.push({
          addr: this.#weightedAddr(encoded.tcp, address),
          ipBytes: encoded.ipBytes,
          port: address.port,
        });
      } catch (err) {
        this.#logDropped(address, err);
      }
    }
    if (built.length === 0) return null;
    // A slice mostly lists its pods in address order already: checking is cheaper than sorting.
    if (!inOrder(built)) built.sort(compareEncodedAddresses);
    return create(UpdateSchema, {
      update: {
        case: "add",
        value: create(WeightedAddrSetSchema, {
          addrs: built.map((b) => b.addr),
          metricLabels: { ...set.labels },
        }),
      },
    });
  }

  #translateRemove(set: AddressSet): Update | null {
    const encoded: (EncodedAddress & { port: number })[] = [];
    for (const { address } of set.addresses.values()) {
      const e = this.#encode(address);
      if (e !== undefined) encoded.push({ ...e, port: address.port });
    }
    if (encoded.length === 0) return null;
    encoded.sort(compareEncodedAddresses);
    return create(UpdateSchema, {
      update: {
        case: "remove",
        value: create(AddrSetSchema, { addrs: encoded.map((e) => e.tcp) }),
      },
    });
  }

  #encode(address: Address): EncodedAddress | undefined {
    try {
      return encodeAddress(address.ip, address.port);
    } catch (err) {
      this.#logDropped(address, err);
      return undefined;
    }
  }

  #weightedAddr(addr: TcpAddress, address: Address): WeightedAddr {
    const { config, logger } = this;
    let wa: WeightedAddr;
    if (address.pod !== null) {
      const opaquePorts = podOpaquePorts(address.pod, config.defaultOpaquePorts, logger);
      wa = podWeightedAddr(addr, address, address.pod, opaquePorts, config, logger);
    } else if (address.externalWorkload !== null) {
      const ew = address.externalWorkload;
      const opaquePorts = externalWorkloadOpaquePorts(ew, config.defaultOpaquePorts, logger);
      wa = externalWorkloadWeightedAddr(addr, address, ew, opaquePorts, config);
    } else {
      wa = podlessWeightedAddr(addr, address, config);
    }
    // A zone field that is present but empty still counts as "has a zone".
    // See README "Zone locality and weight".
    if (this.zone !== "" && address.zone !== null) {
      if (address.zone === this.zone) {
        wa.metricLabels.zone_locality = "local";
        if (config.extEndpointZoneWeights) wa.weight *= 10;
      } else {
        wa.metricLabels.zone_locality = "remote";
      }
    } else {
      wa.metricLabels.zone_locality = "unknown";
    }
    return wa;
  }

  #logDropped(address: Address, err: unknown): void {
    this.logger.error("endpoint left out of the update", {
      ip: address.ip,
      port: address.port,
      pod: address.pod?.metadata.name,
      namespace: address.pod?.metadata.namespace ?? address.externalWorkload?.metadata.namespace,
      externalWorkload: address.externalWorkload?.metadata.name,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

type Ordered = Parameters<typeof compareEncodedAddresses>[0];

/** Whether `list` is in `compareEncodedAddresses` order already. */
function inOrder(list: readonly Ordered[]): boolean {
  for (let i = 1; i < list.length; i++) {
    if (compareEncodedAddresses(list[i - 1] as Ordered, list[i] as Ordered) > 0) return false;
  }
  return true;
}

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
