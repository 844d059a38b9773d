import { type Logger, type ServiceProfile, silentLogger } from "@destination/core";
import type { DestinationProfile } from "@destination/proto";
import type { MessageSink } from "../message-sink.js";
import { type TranslationCounter, uncountedTranslations } from "../translation-counter.js";
import { type ProfileTarget, toDestinationProfile } from "./destination-profile.js";
import type { OpaqueProfileListener } from "./opaque-ports-merge.js";

/**
 * The last stage of a service-profile stream: each profile, with the Service's opaque ports,
 * becomes one `DestinationProfile` in the sink. An invalid profile is logged and nothing is sent,
 * so a stream whose first profile is invalid stays silent, as upstream's does.
 */
export class ProfileTranslator implements OpaqueProfileListener {
  constructor(
    private readonly target: ProfileTarget,
    private readonly sink: MessageSink<DestinationProfile>,
    private readonly logger: Logger = silentLogger,
    private readonly counter: TranslationCounter = uncountedTranslations,
  ) {}

  update(profile: ServiceProfile, opaquePorts: ReadonlySet<number> | undefined): void {
    let message: DestinationProfile;
    try {
      this.counter.translated("profile");
      message = toDestinationProfile(profile, this.target, opaquePorts, this.logger);
    } catch (err) {
      this.logger.error("invalid ServiceProfile, no profile update sent", {
        profile: profile.metadata.name,
        namespace: profile.metadata.namespace,
        fqn: this.target.fqn,
        port: this.target.port,
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    try {
      // A refusal needs no handling here: the server ends the stream.
      this.sink.send(message);
    } catch (err) {
      this.logger.error("failed to enqueue a profile update", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
