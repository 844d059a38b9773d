import type { LabelSelector } from "./objects/meta.js";

export type Labels = Readonly<Record<string, string>> | null | undefined;

/** A compiled label selector; `matches` never throws. */
export type LabelMatcher = (labels: Labels) => boolean;

/**
 * Thrown for a selector Kubernetes would reject. Each caller decides what it means: usually the
 * object is logged and skipped, so one bad Server never stops the others.
 */
export class InvalidSelectorError extends Error {
  override readonly name = "InvalidSelectorError";
}

const NOTHING: LabelMatcher = () => false;

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key as Kubernetes validates it: `[prefix/]name`, prefix a DNS subdomain. */
function checkKey(key: unknown): void {
  if (typeof key !== "string") throw new InvalidSelectorError("a label key is not a string");
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  const validPrefix = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  if (!validPrefix || name.length > 63 || !NAME.test(name)) {
    throw new InvalidSelectorError(`invalid label key ${JSON.stringify(key)}`);
  }
}

/** A label value: empty, or up to 63 characters of a name. */
function checkValue(key: string, value: unknown): void {
  if (typeof value !== "string" || (value !== "" && (value.length > 63 || !NAME.test(value)))) {
    throw new InvalidSelectorError(`${key}: invalid label value ${JSON.stringify(value)}`);
  }
}

/**
 * Compiles a selector with Kubernetes semantics: null or absent selects nothing, `{}`
 * selects everything, otherwise matchLabels AND every matchExpression. Throws
 * InvalidSelectorError where Kubernetes' conversion fails: an unknown operator, In/NotIn without
 * values, Exists/DoesNotExist with values, a malformed label key or value.
 */
export function compileSelector(selector: LabelSelector | null | undefined): LabelMatcher {
  if (selector == null) return NOTHING;
  const tests: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    checkKey(key);
    checkValue(key, value);
    tests.push((labels) => labels != null && Object.hasOwn(labels, key) && labels[key] === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    checkKey(req.key);
    if (req.operator === "In" || req.operator === "NotIn") {
      for (const v of values) checkValue(req.key, v);
    }
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
