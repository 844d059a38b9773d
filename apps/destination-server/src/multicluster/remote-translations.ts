import type { RemoteCluster } from "@destination/multicluster";
import {
  EndpointTranslation,
  type EndpointTranslatorConfig,
  type TranslationCounter,
} from "@destination/translators";
import type { ServerLogger } from "../logging/server-logger.js";

/**
 * Translation for a remote cluster's endpoints (README "Remote discovery flow"): the local config
 * (controller namespace included) with the remote cluster's trust domain. One per linked
 * cluster, so streams of that cluster share translated messages as local streams do.
 */
export class RemoteTranslations {
  readonly #byCluster = new WeakMap<RemoteCluster, EndpointTranslation>();

  constructor(
    private readonly config: EndpointTranslatorConfig,
    private readonly logger: ServerLogger,
    private readonly counter: TranslationCounter,
  ) {}

  forCluster(remote: RemoteCluster): EndpointTranslation {
    let translation = this.#byCluster.get(remote);
    if (translation === undefined) {
      translation = new EndpointTranslation(
        { ...this.config, identityTrustDomain: remote.trustDomain },
        this.logger,
        this.counter,
      );
      this.#byCluster.set(remote, translation);
    }
    return translation;
  }
}
