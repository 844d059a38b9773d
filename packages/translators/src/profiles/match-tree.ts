import { TranslationError } from "../translation-error.js";

// What request and response conditions share: `all` and `any` lists of conditions of the same
// kind, checked and built first and in that order, and several set fields joined into an `all`.
// Each condition keeps its other fields, and their order, to itself.
// See README "Request and response conditions".

/** A condition with `all` and `any` lists of conditions of its own kind. */
interface MatchTree<S> {
  all?: (S | null)[] | null;
  any?: (S | null)[] | null;
}

const SEQ_KINDS = ["all", "any"] as const;

export type SeqKind = (typeof SEQ_KINDS)[number];

/** Wraps matches into an `all` or `any` match of their own message type. */
export type SeqOf<M> = (kind: SeqKind, matches: M[]) => M;

/**
 * Validates the `all` children, then the `any` children; a null child fails the whole profile.
 * True when either list is present, even empty: a present list is a set field.
 */
export function validateSeqs<S extends MatchTree<S>>(m: S, validate: (child: S) => void): boolean {
  let set = false;
  for (const kind of SEQ_KINDS) {
    const children = m[kind];
    if (children == null) continue;
    set = true;
    for (const child of children) {
      if (child == null) throw new TranslationError(`null condition "${kind}"`);
      validate(child);
    }
  }
  return set;
}

/** The `all` match, then the `any` match, of a validated condition: the first fields it sets. */
export function buildSeqs<S extends MatchTree<S>, M>(
  m: S,
  build: (child: S) => M,
  seq: SeqOf<M>,
): M[] {
  const matches: M[] = [];
  for (const kind of SEQ_KINDS) {
    const children = m[kind];
    if (children == null) continue;
    matches.push(
      seq(
        kind,
        children.map((child) => build(child as S)),
      ),
    );
  }
  return matches;
}

/** A single set field is the match itself; several become an `all`, in the order given. */
export function oneOrAll<M>(matches: M[], seq: SeqOf<M>): M {
  if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  return seq("all", matches);
}
