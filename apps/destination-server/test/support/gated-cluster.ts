import { MemoryCluster } from "@destination/k8s-discovery";

/** A MemoryCluster whose caches report synced only once `release()` is called. */
export class GatedCluster extends MemoryCluster {
  #release: () => void = () => {};
  readonly #gate = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  #released = false;

  release(): void {
    this.#released = true;
    this.#release();
  }

  override async whenSynced(): Promise<void> {
    await this.#gate;
    await super.whenSynced();
  }

  override hasSynced(): boolean {
    return this.#released && super.hasSynced();
  }
}
