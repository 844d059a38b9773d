// Public API of @destination/translators: watcher output in, proxy API messages out. It exports
// what other packages import, nothing more; the pipeline stages stay inside.

// For users of the package: one stream's translation, as in the README's example. A Get stream
// gets an `EndpointTranslator` over the shared `EndpointTranslation`; a GetProfile stream gets
// `createServiceProfileStream` (a service) or an `EndpointProfileTranslator` (an `ip:port`);
// every one of them writes to a `MessageSink`.

export type { EndpointTranslatorConfig, MessageSink } from "./contracts.js";
export { EndpointTranslation, EndpointTranslator } from "./endpoints/endpoint-translator.js";
export { EndpointProfileTranslator } from "./profiles/endpoint-profile-translator.js";
export { createServiceProfileStream } from "./profiles/service-profile-stream.js";

// For authors composing a server: the per-zone translation a Get handler holds, the answer to
// a port the Service does not define, and the hook that counts translations for metrics.

export type { TranslationCounter, TranslationKind } from "./contracts.js";
export type { ZonedEndpointTranslation } from "./endpoints/endpoint-translator.js";
export { portNotDefinedProfile } from "./profiles/destination-profile.js";
