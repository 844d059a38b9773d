import type { ProfileListener, ServiceProfile } from "@destination/core";

/**
 * Same object, or the same stored version of the same object. Informer resyncs repeat an object;
 * a new resourceVersion is a change even when the content is identical.
 */
function sameVersion(a: ServiceProfile, b: ServiceProfile): boolean {
  if (a === b) return true;
  const { uid, resourceVersion } = a.metadata;
  return (
    !!uid &&
    !!resourceVersion &&
    uid === b.metadata.uid &&
    resourceVersion === b.metadata.resourceVersion
  );
}

/**
 * Drops a profile that repeats the one forwarded last, including a repeated default profile, so
 * that informer resyncs send nothing. See README "The service-profile pipeline".
 */
export class DedupProfileListener implements ProfileListener {
  #last: ServiceProfile | null | undefined;

  constructor(private readonly next: ProfileListener) {}

  update(profile: ServiceProfile | null): void {
    const last = this.#last;
    if (last !== undefined) {
      if (profile === null ? last === null : last !== null && sameVersion(profile, last)) return;
    }
    this.#last = profile;
    this.next.update(profile);
  }
}
