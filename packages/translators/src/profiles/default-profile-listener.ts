import type { ProfileListener, ServiceProfile } from "@destination/core";
import { DEFAULT_SERVICE_PROFILE } from "./default-service-profile.js";

/** Turns "no ServiceProfile" into the default profile: a stream always has a profile to send. */
export class DefaultProfileListener implements ProfileListener {
  constructor(private readonly next: ProfileListener) {}

  update(profile: ServiceProfile | null): void {
    this.next.update(profile ?? DEFAULT_SERVICE_PROFILE);
  }
}
