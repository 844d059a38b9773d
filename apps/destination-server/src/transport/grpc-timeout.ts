const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/**
 * A `grpc-timeout` header in milliseconds (at most eight digits and a unit): undefined when the
 * call has no deadline, `"malformed"` for a value the call is refused for, as grpc-go refuses it.
 */
export function parseGrpcTimeout(value: string | undefined): number | "malformed" | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (match === null) return "malformed";
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}
