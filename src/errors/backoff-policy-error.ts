import { brand, hasBrand } from '../internal/brand.js';
import { describeSafely } from '../internal/read-safely.js';

/**
 * A backoff policy that threw, or returned a delay that is not a finite number of milliseconds: a
 * programming error, never a reason to retry sooner. Every component that waits on a policy stops
 * retrying with this error instead — a connection manager shuts down (reason `policy-error`), a
 * call of `retry()` or `failover()` rejects, a circuit breaker stays open until `reset()`, a queue job
 * is not retried — so a broken policy is loud at its first use and can never become a 0 ms wait.
 * `cause` is what the policy threw, if it threw.
 */
export class BackoffPolicyError extends Error {
  override readonly name = 'BackoffPolicyError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    brand(this, 'BackoffPolicyError');
  }

  /** The error for a policy that threw `thrown`. */
  static threw(thrown: unknown): BackoffPolicyError {
    return new BackoffPolicyError(`redialer: the backoff policy threw: ${describeSafely(thrown)}`, { cause: thrown });
  }
}

/** Whether `value` is a {@link BackoffPolicyError} (from any copy of redialer). */
export function isBackoffPolicyError(value: unknown): value is BackoffPolicyError {
  return hasBrand(value, 'BackoffPolicyError');
}
