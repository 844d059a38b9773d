import { Problem, received, typeProblem } from "./problem.js";

/**
 * A type test of a value of unknown shape. `problem` returns undefined when the value passes
 * (allocating nothing) and the first problem found when it does not; checks never throw and
 * never change the value.
 */
export interface Check {
  /** What the check accepts, as messages name it: `string`, `Object`, `(number | string)`. */
  readonly expects: string;
  readonly problem: (value: unknown) => Problem | undefined;
}

type Fields = Readonly<Record<string, unknown>>;

export const string: Check = {
  expects: "string",
  problem: (value) => (typeof value === "string" ? undefined : typeProblem("string", value)),
};

export const boolean: Check = {
  expects: "boolean",
  problem: (value) => (typeof value === "boolean" ? undefined : typeProblem("boolean", value)),
};

/** A number other than NaN. */
export const number: Check = {
  expects: "number",
  problem: (value) =>
    typeof value === "number" && !Number.isNaN(value) ? undefined : typeProblem("number", value),
};

/** Anything at all, for lists whose items are checked where they are read. */
export const unknown: Check = { expects: "unknown", problem: () => undefined };

/** A value `check` accepts that must also pass `test`, else `message(value)`. */
export function refine<T>(
  check: Check,
  test: (value: T) => boolean,
  message: (value: T) => string,
): Check {
  return {
    expects: check.expects,
    problem: (value) =>
      check.problem(value) ??
      (test(value as T) ? undefined : new Problem(message(value as T), true)),
  };
}

export const nonEmptyString = refine<string>(
  string,
  (value) => value.length !== 0,
  () => "Invalid length: Expected !0 but received 0",
);

/** Ports, and any other whole number; Infinity is not one. */
export const integer = refine<number>(
  number,
  Number.isInteger,
  (value) => `Invalid integer: Received ${received(value)}`,
);

/** `check`, or absent. `null` must pass `check`. */
export function optional(check: Check): Check {
  return {
    expects: `(${check.expects} | undefined)`,
    problem: (value) => (value === undefined ? undefined : check.problem(value)),
  };
}

/** `check`, or absent, or `null`, as the API server writes an unset field. */
export function nullish(check: Check): Check {
  return {
    expects: `(${check.expects} | null | undefined)`,
    problem: (value) => (value === undefined || value === null ? undefined : check.problem(value)),
  };
}

/** An array whose every item passes `item`; holes count as absent items. */
export function list(item: Check): Check {
  return {
    expects: "Array",
    problem: (value) => {
      if (!Array.isArray(value)) return typeProblem("Array", value);
      for (let i = 0; i < value.length; i++) {
        const problem = item.problem(value[i]);
        if (problem !== undefined) return problem.at(i);
      }
      return undefined;
    },
  };
}

/**
 * An object of string values, as labels, annotations and selectors are. It is read by key, so
 * an array is refused; keys that are not the object's own, and `__proto__`, `prototype` and
 * `constructor`, are not looked at.
 */
export const stringMap: Check = {
  expects: "Object",
  problem: (value) => {
    if (Array.isArray(value)) return new Problem("expected Object, got Array", false);
    if (!value || typeof value !== "object") return typeProblem("Object", value);
    for (const key in value) {
      if (!Object.hasOwn(value, key) || isIgnoredKey(key)) continue;
      const entry = (value as Fields)[key];
      if (typeof entry !== "string") return typeProblem("string", entry).at(key);
    }
    return undefined;
  },
};

function isIgnoredKey(key: string): boolean {
  return key === "__proto__" || key === "prototype" || key === "constructor";
}

/**
 * Any object (arrays included) whose `fields` pass their checks, in the order given, read
 * through the prototype chain; other fields pass unread.
 */
export function looseObject(fields: Readonly<Record<string, Check>>): Check {
  const keys = Object.keys(fields);
  const checks = Object.values(fields);
  return {
    expects: "Object",
    problem: (value) => {
      if (!value || typeof value !== "object") return typeProblem("Object", value);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const problem = (checks[i] as Check).problem((value as Fields)[key]);
        if (problem !== undefined) return problem.at(key);
      }
      return undefined;
    },
  };
}

/**
 * A value that passes one of `options`. When all fail, the one problem that is a refinement (a
 * number that is not an integer) is named if there is exactly one, else the one failing option's
 * own problem, else what the union expects.
 */
export function union(options: readonly Check[]): Check {
  const distinct = [...new Set(options.map((option) => option.expects))];
  const expects = distinct.length > 1 ? `(${distinct.join(" | ")})` : (distinct[0] ?? "never");
  return {
    expects,
    problem: (value) => {
      let refined: Problem | undefined;
      let refinedCount = 0;
      let failed: Problem | undefined;
      for (const option of options) {
        const problem = option.problem(value);
        if (problem === undefined) return undefined;
        if (problem.refinement) {
          refined ??= problem;
          refinedCount++;
        } else {
          failed = problem;
        }
      }
      if (refinedCount === 1) return refined;
      if (refinedCount > 1) {
        const problem = typeProblem(expects, value);
        problem.refinement = true;
        return problem;
      }
      return options.length === 1 ? failed : typeProblem(expects, value);
    },
  };
}
