import type { Secret } from "@destination/core";
import { keyOf, objectKey, type WatchStore } from "@destination/k8s-discovery";

/**
 * A `WatchStore` that reports only adds and deletes of Secrets: the cluster store, as upstream,
 * has no update handler (a rotated kubeconfig takes effect only through a delete and an add), so
 * a changed Secret, or one listed again on a relist, is not news.
 */
export class SecretEvents implements WatchStore<Secret> {
  readonly #known = new Map<string, Secret>();

  constructor(
    private readonly onAdd: (secret: Secret) => void,
    private readonly onDelete: (secret: Secret) => void,
  ) {}

  apply(secret: Secret): void {
    const key = keyOf(secret);
    const known = this.#known.has(key);
    this.#known.set(key, secret);
    if (!known) this.onAdd(secret);
  }

  remove(namespace: string | undefined, name: string): void {
    const key = objectKey(namespace, name);
    const last = this.#known.get(key);
    if (last === undefined) return;
    this.#known.delete(key);
    this.onDelete(last);
  }

  replace(secrets: readonly Secret[]): void {
    const listed = new Set(secrets.map((s) => keyOf(s)));
    for (const [key, last] of [...this.#known]) {
      if (!listed.has(key)) {
        this.#known.delete(key);
        this.onDelete(last);
      }
    }
    for (const secret of secrets) this.apply(secret);
  }
}
