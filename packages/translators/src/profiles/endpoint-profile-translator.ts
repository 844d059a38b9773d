import {
  type Address,
  externalWorkloadOpaquePorts,
  type Logger,
  podOpaquePorts,
  silentLogger,
  type WorkloadListener,
} from "@destination/core";
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  equals,
  type WeightedAddr,
} from "@destination/proto";
import {
  type EndpointTranslatorConfig,
  type MessageSink,
  type TranslationCounter,
  uncountedTranslations,
} from "../contracts.js";
import { encodeAddress } from "../endpoints/tcp-address.js";
import {
  bareWeightedAddr,
  externalWorkloadWeightedAddr,
  podWeightedAddr,
} from "../endpoints/weighted-addr.js";
import { defaultRetryBudget } from "./destination-profile.js";

/**
 * One GetProfile stream on an `ip:port` (README "Endpoint profiles"): every address the workload
 * watcher reports becomes a `DestinationProfile` carrying the endpoint itself, sent only when it
 * differs from the last one that was sent.
 *
 * As upstream, a running pod's label and annotation edits never reach this translator, because
 * the workload watcher ignores events of a pod that stays Running.
 */
export class EndpointProfileTranslator implements WorkloadListener {
  #lastSent: DestinationProfile | undefined;

  constructor(
    private readonly config: EndpointTranslatorConfig,
    private readonly sink: MessageSink<DestinationProfile>,
    private readonly logger: Logger = silentLogger,
    private readonly counter: TranslationCounter = uncountedTranslations,
  ) {}

  update(address: Address): void {
    let profile: DestinationProfile;
    try {
      this.counter.translated("endpoint_profile");
      profile = this.#profile(address);
    } catch (err) {
      this.logger.error("no endpoint profile sent: the endpoint cannot be translated", {
        ip: address.ip,
        port: address.port,
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    if (this.#lastSent !== undefined && equals(DestinationProfileSchema, profile, this.#lastSent)) {
      return;
    }
    try {
      if (this.sink.send(profile)) this.#lastSent = profile;
    } catch (err) {
      this.logger.error("failed to enqueue an endpoint profile", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #profile(address: Address): DestinationProfile {
    const { config, logger } = this;
    const { tcp } = encodeAddress(address.ip, address.port);
    let opaquePorts: ReadonlySet<number>;
    let endpoint: WeightedAddr;
    if (address.pod !== null) {
      opaquePorts = podOpaquePorts(address.pod, config.defaultOpaquePorts, logger);
      endpoint = podWeightedAddr(tcp, address, address.pod, opaquePorts, config, logger);
      // Get carries the namespace in the set labels; here the endpoint is alone.
      endpoint.metricLabels.namespace = address.pod.metadata.namespace ?? "";
    } else if (address.externalWorkload !== null) {
      const ew = address.externalWorkload;
      opaquePorts = externalWorkloadOpaquePorts(ew, config.defaultOpaquePorts, logger);
      endpoint = externalWorkloadWeightedAddr(tcp, address, ew, opaquePorts, config);
      endpoint.metricLabels.namespace = ew.metadata.namespace ?? "";
    } else {
      opaquePorts = config.defaultOpaquePorts;
      endpoint = bareWeightedAddr(tcp);
    }
    return create(DestinationProfileSchema, {
      retryBudget: defaultRetryBudget(),
      endpoint,
      opaqueProtocol: opaquePorts.has(address.port) || address.opaqueProtocol,
    });
  }
}
