// Public API of @destination/translators: watcher output in, proxy API messages out.

export {
  type EndpointTranslatorConfig,
  type MessageSink,
  type TranslationCounter,
  type TranslationKind,
  uncountedTranslations,
} from "./contracts.js";
export {
  EndpointTranslation,
  EndpointTranslator,
  type ZonedEndpointTranslation,
} from "./endpoints/endpoint-translator.js";
export {
  type OpaqueProfileListener,
  type ProfileTarget,
  ProfileTranslator,
  portNotDefinedProfile,
} from "./profiles/destination-profile.js";
export { EndpointProfileTranslator } from "./profiles/endpoint-profile-translator.js";
export {
  createServiceProfileStream,
  DedupProfileListener,
  DefaultProfileListener,
  FallbackProfileListener,
  OpaquePortsMerge,
  type ProfileSubscription,
  type ServiceProfileStream,
  type ServiceProfileStreamOptions,
} from "./profiles/service-profile-stream.js";
