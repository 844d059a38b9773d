import type { ServiceProfile } from "@destination/core";

/**
 * What a service-profile stream uses while no ServiceProfile exists (README "The default
 * profile"): empty
 * metadata and spec. It is one frozen object so that the dedup stage recognises a repeated
 * default by identity, and so that the translator can tell it from a real profile.
 */
export const DEFAULT_SERVICE_PROFILE: ServiceProfile = Object.freeze({
  metadata: Object.freeze({ name: "" }),
  spec: Object.freeze({}),
});
