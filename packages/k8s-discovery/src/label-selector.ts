import type { LabelSelector } from "./objects/meta.js";

export type Labels = Readonly<Record<string, string>> | null | undefined;

/** A compiled label selector; `matches` never throws. */
export type LabelMatcher = (labels: Labels) => boolean;

/** Thrown for a selector Kubernetes would reject; callers log it and skip. */
export class InvalidSelectorError extends Error {
  override readonly name = "InvalidSelectorError";
}

const NOTHING: LabelMatcher = () => false;

/**
 * Compiles a selector with Kubernetes semantics (K-15): null or absent selects nothing, `{}`
 * selects everything, otherwise matchLabels AND every matchExpression.
 */
export function compileSelector(selector: LabelSelector | null | undefined): LabelMatcher {
  if (selector == null) return NOTHING;
  const tests: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    tests.push((labels) => labels?.[key] === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    const has = (labels: Labels) => labels != null && Object.hasOwn(labels, req.key);
    switch (req.operator) {
      case "In":
        if (values.length === 0) throw new InvalidSelectorError(`${req.key}: In needs values`);
        tests.push((labels) => has(labels) && values.includes(labels?.[req.key] ?? ""));
        break;
      case "NotIn":
        if (values.length === 0) throw new InvalidSelectorError(`${req.key}: NotIn needs values`);
        tests.push((labels) => !has(labels) || !values.includes(labels?.[req.key] ?? ""));
        break;
      case "Exists":
        if (values.length > 0) throw new InvalidSelectorError(`${req.key}: Exists takes no values`);
        tests.push(has);
        break;
      case "DoesNotExist":
        if (values.length > 0)
          throw new InvalidSelectorError(`${req.key}: DoesNotExist takes no values`);
        tests.push((labels) => !has(labels));
        break;
      default:
        throw new InvalidSelectorError(
          `${req.key}: unknown operator ${JSON.stringify(req.operator)}`,
        );
    }
  }
  return (labels) => tests.every((t) => t(labels));
}

/** One-shot form of `compileSelector(selector)(labels)`. */
export function selectorMatches(
  selector: LabelSelector | null | undefined,
  labels: Labels,
): boolean {
  return compileSelector(selector)(labels);
}
