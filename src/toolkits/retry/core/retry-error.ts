import { brand, hasBrand } from '../../../internal/brand.js';
import { describeSafely } from '../../../internal/read-safely.js';
import { markRetriesExhausted } from './retries-exhausted.js';

/**
 * Why a retry loop gave up on a transient failure:
 * - `attempts`: the attempt limit was reached;
 * - `deadline`: the total deadline passed, or the next wait would end after it;
 * - `retry-after-beyond-deadline`: the server asked for a wait (Retry-After or gRPC pushback) that
 *   ends after the deadline;
 * - `server-pushback`: the server asked not to retry (a negative or unparseable gRPC pushback);
 * - `throttled`: the retry budget refused the retry;
 * - `not-idempotent`: the failure may have reached the server and the operation is not safe to repeat.
 */
export type GiveUpReason =
  'attempts' | 'deadline' | 'retry-after-beyond-deadline' | 'server-pushback' | 'throttled' | 'not-idempotent';

/**
 * Thrown when a retry loop gives up on a transient failure. `cause` is the last failure. It is marked
 * as having used up its retries, so an outer retry layer does not retry it again.
 *
 * @example
 * ```ts
 * try { await retry(op); } catch (e) { if (isRetryError(e)) log(e.attempts, e.reason, e.cause); }
 * ```
 */
export class RetryError extends Error {
  override readonly name = 'RetryError';

  constructor(
    /** Why the loop gave up. */
    readonly reason: GiveUpReason,
    /** How many attempts were made. */
    readonly attempts: number,
    /** The last failure. */
    override readonly cause: unknown,
    /** What happened, in words; the message adds the attempt count and the last failure. */
    detail: string,
  ) {
    super(
      `gave up after ${String(attempts)} attempt${attempts === 1 ? '' : 's'}: ${detail}; last failure: ${describeSafely(cause)}`,
      {
        cause,
      },
    );
    brand(this, 'RetryError');
    markRetriesExhausted(this);
  }
}

/** Whether `value` is a {@link RetryError} (from any copy of redialer). */
export function isRetryError(value: unknown): value is RetryError {
  return hasBrand(value, 'RetryError');
}
