// Public API of @destination/translators: watcher output in, proxy API messages out.

export type { EndpointTranslatorConfig } from "./config.js";
export { DedupProfileListener } from "./dedup-profile-listener.js";
export { DefaultProfileListener } from "./default-profile-listener.js";
export type { ProfileTarget } from "./destination-profile.js";
export { EndpointProfileTranslator } from "./endpoint-profile-translator.js";
export { EndpointTranslation, type ZonedEndpointTranslation } from "./endpoint-translation.js";
export { EndpointTranslator } from "./endpoint-translator.js";
export { FallbackProfileListener } from "./fallback-profile-listener.js";
export type { MessageSink } from "./message-sink.js";
export { OpaquePortsMerge, type OpaqueProfileListener } from "./opaque-ports-merge.js";
export { portNotDefinedProfile } from "./port-not-defined-profile.js";
export { ProfileTranslator } from "./profile-translator.js";
export {
  createServiceProfileStream,
  type ProfileSubscription,
  type ServiceProfileStream,
  type ServiceProfileStreamOptions,
} from "./service-profile-stream.js";
export {
  type TranslationCounter,
  type TranslationKind,
  uncountedTranslations,
} from "./translation-counter.js";
