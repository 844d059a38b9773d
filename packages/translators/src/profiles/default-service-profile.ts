import type { ServiceProfile } from "@destination/core";

/**
 * What a service-profile stream uses while no ServiceProfile exists: empty metadata and spec.
 * It is one frozen object so that the dedup stage recognises a repeated default by identity, and
 * so that the translator can tell it from a real profile. See README "The default profile".
 */
export const DEFAULT_SERVICE_PROFILE: ServiceProfile = Object.freeze({
  metadata: Object.freeze({ name: "" }),
  spec: Object.freeze({}),
});
