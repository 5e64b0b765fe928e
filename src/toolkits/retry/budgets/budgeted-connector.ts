/**
 * A retry budget for connection managers: wrap each manager's connector with the same budget, and a
 * fleet of managers reconnecting to one struggling server shares one limit on retries.
 * @module
 */
import { Observable } from 'rxjs';
import type { Connector } from '../../../core/connector.js';
import { isPermanentError } from '../../../errors/permanent-error.js';
import { brand, hasBrand } from '../../../internal/brand.js';
import type { RetryBudget } from './retry-budget.js';

/** A connection attempt refused by the retry budget before anything was sent. */
export class RetryThrottledError extends Error {
  override readonly name = 'RetryThrottledError';

  constructor(
    /** The attempt number that was refused. */
    readonly attempt: number,
  ) {
    super(`connection attempt ${String(attempt)} was not sent: the retry budget is exhausted`);
    brand(this, 'RetryThrottledError');
  }
}

/** Whether `value` is a {@link RetryThrottledError} (from any copy of redialer). */
export function isRetryThrottledError(value: unknown): value is RetryThrottledError {
  return hasBrand(value, 'RetryThrottledError');
}

/**
 * Wraps a connector so that its retries (attempt numbers above 1) draw on `budget`. A refused retry
 * fails at once with a {@link RetryThrottledError}, without touching the network; the manager counts
 * it as a failed attempt and backs off further, so it tries again later, once the budget has refilled.
 * Establishment counts as a success; a failure (other than a PermanentError) as a transient failure.
 *
 * @example
 * ```ts
 * const budget = tokenBucketBudget({ maxTokens: 10, tokenRatio: 0.1 });
 * const managers = hosts.map((h) => new ConnectionManager({ connector: budgetedConnector(connectTo(h), budget) }));
 * ```
 */
export function budgetedConnector<C>(connector: Connector<C>, budget: RetryBudget): Connector<C> {
  return (context) =>
    new Observable<C>((subscriber) => {
      const isRetry = context.attempt > 1;
      if (isRetry && !budget.canRetry()) {
        subscriber.error(new RetryThrottledError(context.attempt));
        return undefined;
      }
      budget.onAttempt(isRetry);
      let established = false;
      return connector(context).subscribe({
        next: (connection) => {
          if (!established) {
            established = true;
            budget.onSuccess();
          }
          subscriber.next(connection);
        },
        error: (error: unknown) => {
          if (!established && !isPermanentError(error)) budget.onTransientFailure();
          subscriber.error(error);
        },
        complete: () => {
          subscriber.complete();
        },
      });
    });
}
