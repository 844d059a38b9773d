import { create, DurationSchema, type RetryBudget, RetryBudgetSchema } from "@destination/proto";

/**
 * What a proxy uses when no ServiceProfile sets a budget: retries may add 20% to the request
 * rate, at least 10 per second, measured over 10 seconds.
 */
export function defaultRetryBudget(): RetryBudget {
  return create(RetryBudgetSchema, {
    retryRatio: 0.2,
    minRetriesPerSecond: 10,
    ttl: create(DurationSchema, { seconds: 10n }),
  });
}
