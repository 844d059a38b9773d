// Public API of @destination/translators: watcher output in, proxy API messages out.

export type { EndpointTranslatorConfig } from "./config.js";
export {
  EndpointTranslation,
  type ZonedEndpointTranslation,
} from "./endpoints/endpoint-translation.js";
export { EndpointTranslator } from "./endpoints/endpoint-translator.js";
export type { MessageSink } from "./message-sink.js";
export { DedupProfileListener } from "./profiles/dedup-profile-listener.js";
export { DefaultProfileListener } from "./profiles/default-profile-listener.js";
export type { ProfileTarget } from "./profiles/destination-profile.js";
export { EndpointProfileTranslator } from "./profiles/endpoint-profile-translator.js";
export { FallbackProfileListener } from "./profiles/fallback-profile-listener.js";
export { OpaquePortsMerge, type OpaqueProfileListener } from "./profiles/opaque-ports-merge.js";
export { portNotDefinedProfile } from "./profiles/port-not-defined-profile.js";
export { ProfileTranslator } from "./profiles/profile-translator.js";
export {
  createServiceProfileStream,
  type ProfileSubscription,
  type ServiceProfileStream,
  type ServiceProfileStreamOptions,
} from "./profiles/service-profile-stream.js";
export {
  type TranslationCounter,
  type TranslationKind,
  uncountedTranslations,
} from "./translation-counter.js";
