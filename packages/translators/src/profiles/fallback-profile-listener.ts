import type { ProfileListener, ServiceProfile } from "@destination/core";

interface Reported {
  readonly profile: ServiceProfile | null;
}

/**
 * Chooses between the client-namespace ServiceProfile (primary) and the service-namespace one
 * (backup). Nothing is published until both have reported once; after that every report
 * publishes the primary, or the backup while the primary is absent.
 */
export class FallbackProfileListener {
  /** Subscribe to the ServiceProfile `<fqn>` in the client's namespace. */
  readonly primary: ProfileListener = { update: (p) => this.#report("primary", p) };
  /** Subscribe to the ServiceProfile `<fqn>` in the Service's namespace. */
  readonly backup: ProfileListener = { update: (p) => this.#report("backup", p) };

  #primary: Reported | undefined;
  #backup: Reported | undefined;

  constructor(private readonly next: ProfileListener) {}

  #report(which: "primary" | "backup", profile: ServiceProfile | null): void {
    if (which === "primary") this.#primary = { profile };
    else this.#backup = { profile };
    const primary = this.#primary;
    const backup = this.#backup;
    if (primary === undefined || backup === undefined) return;
    this.next.update(
      primary.profile === null && backup.profile !== null ? backup.profile : primary.profile,
    );
  }
}
