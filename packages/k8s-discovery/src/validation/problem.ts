/**
 * Why a value failed a check, built only once a check fails: the passing path allocates
 * nothing, which matters when a start validates tens of thousands of pods.
 */
export class Problem {
  /** Object keys and array indexes from the failing value out to the root, innermost first. */
  private readonly keys: (string | number)[] = [];

  constructor(
    readonly message: string,
    /**
     * The value had the expected type but failed a further test (a non-integer number). A union
     * names such a problem rather than listing the types it expects.
     */
    public refinement: boolean,
  ) {}

  /** The problem as seen from the container that holds the failing value under `key`. */
  at(key: string | number): Problem {
    this.keys.push(key);
    // A container's problem is about its content, never a refinement of the container.
    this.refinement = false;
    return this;
  }

  /** `spec.ports[0].port`, or "the object" for the root. */
  get path(): string {
    let out = "";
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const key = this.keys[i] as string | number;
      out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`;
    }
    return out === "" ? "the object" : out;
  }

  /** `path: message`, with the message cut short: a received value is quoted whole. */
  toString(): string {
    const text =
      this.message.length > MAX_MESSAGE ? `${this.message.slice(0, MAX_MESSAGE)}…` : this.message;
    return `${this.path}: ${text}`;
  }
}

const MAX_MESSAGE = 160;

/** `value` is not what `expects` names: "missing" when absent, else `expected X, got Y`. */
export function typeProblem(expects: string, value: unknown): Problem {
  const got = received(value);
  return new Problem(got === "undefined" ? "missing" : `expected ${expects}, got ${got}`, false);
}

/**
 * How a message shows a value, short whatever its size: strings in double quotes (not escaped),
 * numbers, bigints and booleans bare, objects by their constructor's name (`Object`, `Array`;
 * `null` for null and prototype-less objects), anything else by its `typeof`.
 */
export function received(value: unknown): string {
  const type = typeof value;
  if (type === "string") return `"${value as string}"`;
  if (type === "number" || type === "bigint" || type === "boolean") {
    return `${value as number | bigint | boolean}`;
  }
  if (type === "object" || type === "function") {
    return value ? (Object.getPrototypeOf(value)?.constructor?.name ?? "null") : "null";
  }
  return type;
}
