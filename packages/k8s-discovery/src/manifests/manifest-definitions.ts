import type { KubeObject } from "@destination/core";
import { objectKey } from "../cache.js";
import type { ResourceKind } from "../resource-kind.js";
import type { ManifestLocation, ManifestObject } from "./manifest-documents.js";

/** One file's definition of one object. */
export interface ObjectDefinition {
  readonly file: string;
  /** `Kind/namespace/name`: one object across all files. */
  readonly key: string;
  readonly kind: ResourceKind;
  readonly object: KubeObject;
  /** The object as JSON text: equal text, unchanged object. */
  readonly content: string;
  readonly location: ManifestLocation;
  /** When this definition was last written, relative to all others: the later write wins. */
  readonly writeOrder: number;
}

/** An object defined by more than one file; `winner` is the definition in force. */
export interface DefinitionConflict {
  readonly key: string;
  readonly winner: ObjectDefinition;
  readonly others: readonly ObjectDefinition[];
}

export function definitionKey(kind: ResourceKind, object: KubeObject): string {
  return `${kind}/${objectKey(object.metadata.namespace, object.metadata.name)}`;
}

/**
 * Which file defines which object. When files disagree, the definition written last wins; a
 * definition counts as written when it first appears or its content changes, so saving a file
 * does not take over objects it did not touch, and removing the winning file hands each object
 * back to the latest remaining definition.
 */
export class ManifestDefinitions {
  readonly #byFile = new Map<string, readonly ObjectDefinition[]>();
  #writes = 0;

  /**
   * Sets what a file defines now, in file order. An object defined twice in the same file keeps
   * its later definition; the pairs are returned for reporting.
   */
  setFile(
    file: string,
    objects: readonly ManifestObject[],
  ): [earlier: ObjectDefinition, later: ObjectDefinition][] {
    const previous = new Map((this.#byFile.get(file) ?? []).map((d) => [d.key, d]));
    const defs = new Map<string, ObjectDefinition>();
    const duplicates: [ObjectDefinition, ObjectDefinition][] = [];
    for (const { kind, object, location } of objects) {
      const key = definitionKey(kind, object);
      const content = JSON.stringify(object);
      const before = previous.get(key);
      const writeOrder = before?.content === content ? before.writeOrder : ++this.#writes;
      const def = { file, key, kind, object, content, location, writeOrder };
      const earlier = defs.get(key);
      if (earlier) {
        duplicates.push([earlier, def]);
        defs.delete(key); // keeps file order: the object sits where it was last defined
      }
      defs.set(key, def);
    }
    this.#byFile.set(file, [...defs.values()]);
    return duplicates;
  }

  /** Forgets a file; false when it defined nothing known. */
  removeFile(file: string): boolean {
    return this.#byFile.delete(file);
  }

  definedBy(file: string): readonly ObjectDefinition[] {
    return this.#byFile.get(file) ?? [];
  }

  /** The definition in force for every object, in file order (files by path). */
  current(): ObjectDefinition[] {
    const winners = this.#winners();
    const ordered: ObjectDefinition[] = [];
    for (const file of [...this.#byFile.keys()].sort()) {
      for (const def of this.#byFile.get(file) ?? []) {
        if (winners.get(def.key) === def) ordered.push(def);
      }
    }
    return ordered;
  }

  conflicts(): DefinitionConflict[] {
    const all = new Map<string, ObjectDefinition[]>();
    for (const defs of this.#byFile.values()) {
      for (const def of defs) all.set(def.key, [...(all.get(def.key) ?? []), def]);
    }
    const conflicts: DefinitionConflict[] = [];
    for (const [key, defs] of all) {
      if (defs.length < 2) continue;
      const sorted = defs.sort((a, b) => b.writeOrder - a.writeOrder);
      const [winner, ...others] = sorted;
      if (winner) conflicts.push({ key, winner, others });
    }
    return conflicts;
  }

  #winners(): Map<string, ObjectDefinition> {
    const winners = new Map<string, ObjectDefinition>();
    for (const defs of this.#byFile.values()) {
      for (const def of defs) {
        const best = winners.get(def.key);
        if (!best || def.writeOrder > best.writeOrder) winners.set(def.key, def);
      }
    }
    return winners;
  }
}
