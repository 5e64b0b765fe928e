/**
 * Retry budgets: limits on retries shared by many calls, so that a struggling server is not buried
 * under retries (retry amplification). Both kinds are plain objects with no timers; share one across
 * calls, clients and retry layers by passing the same object.
 * @module
 */
import { asyncScheduler } from 'rxjs';
import { checkNumber, checkOptionsObject, optionalClock, optionalNumber } from '../../../internal/validate.js';
import { SlidingWindow } from './sliding-window.js';

/** What a retry loop tells a budget, and asks it. */
export interface RetryBudget {
  /** An attempt is being sent; `isRetry` is false for the first attempt of a call. */
  onAttempt(isRetry: boolean): void;
  /** An attempt succeeded. */
  onSuccess(): void;
  /** An attempt failed with a transient failure (or the server pushed back). */
  onTransientFailure(): void;
  /** Whether a retry may be sent now. Asking does not spend anything. */
  canRetry(): boolean;
}

/** Options of {@link tokenBucketBudget}, as in gRFC A6's `retryThrottling`. */
export interface TokenBucketBudgetOptions {
  /** The bucket size, in (0, 1000]; the bucket starts full. */
  readonly maxTokens: number;
  /** Tokens returned per success, > 0, to three decimal places (more digits are ignored, as A6 says). */
  readonly tokenRatio: number;
}

/** A gRFC A6 token bucket; `tokens` is the current count. */
export interface TokenBucketBudget extends RetryBudget {
  /** The tokens now in the bucket. */
  readonly tokens: number;
}

/**
 * gRPC's retry throttling (gRFC A6): each transient failure takes one token, each success returns
 * `tokenRatio`, and retries are allowed only while more than `maxTokens / 2` tokens remain.
 *
 * @example
 * ```ts
 * const budget = tokenBucketBudget({ maxTokens: 10, tokenRatio: 0.1 }); // share it across calls
 * await retry(op, { budget });
 * ```
 */
export function tokenBucketBudget(options: TokenBucketBudgetOptions): TokenBucketBudget {
  const raw = checkOptionsObject('tokenBucketBudget options', options);
  const maxTokens = checkNumber('maxTokens', raw['maxTokens'], { min: Number.MIN_VALUE, max: 1000 });
  const tokenRatio = checkNumber('tokenRatio', raw['tokenRatio'], { min: Number.MIN_VALUE });
  // Kept in thousandths, as gRPC implementations do, so that no rounding drift accumulates.
  const max = Math.round(maxTokens * 1000);
  const ratio = Math.floor(tokenRatio * 1000 + 1e-6);
  if (ratio < 1)
    throw new RangeError(`redialer: option "tokenRatio" must be at least 0.001, got ${String(tokenRatio)}`);
  let milli = max;
  return {
    get tokens() {
      return milli / 1000;
    },
    onAttempt() {
      // The bucket counts outcomes, not attempts.
    },
    onSuccess() {
      milli = Math.min(max, milli + ratio);
    },
    onTransientFailure() {
      milli = Math.max(0, milli - 1000);
    },
    canRetry: () => milli > max / 2,
  };
}

/** Options of {@link ratioBudget}. */
export interface RatioBudgetOptions {
  /** The largest share of attempts that may be retries, in [0, 1]. @defaultValue 0.1 */
  readonly ratio?: number;
  /** The sliding window, in milliseconds. @defaultValue 10000 */
  readonly window?: number;
  /**
   * Retries allowed per window whatever the ratio, so that a quiet client can still retry (a lone
   * call has no traffic to earn a share of). 0 makes the ratio strict. @defaultValue 10
   */
  readonly minRetries?: number;
  /** The clock. @defaultValue RxJS `asyncScheduler` */
  readonly scheduler?: {
    /** The current time in milliseconds. */
    now(): number;
  };
}

/** A ratio budget; `retryRatio` is the share of attempts in the window that were retries. */
export interface RatioBudget extends RetryBudget {
  /** Retries / attempts within the window (0 when there were none). */
  readonly retryRatio: number;
}

/**
 * A retry budget as a share of traffic (the "retry budget" of Google's SRE book and Finagle): a retry
 * is allowed while retries stay at most `ratio` of all attempts over the last `window` ms, or while
 * fewer than `minRetries` retries were sent in it.
 *
 * @example
 * ```ts
 * const budget = ratioBudget({ ratio: 0.1, window: 10_000 });
 * ```
 */
export function ratioBudget(options: RatioBudgetOptions = {}): RatioBudget {
  const raw = checkOptionsObject('ratioBudget options', options);
  const ratio = optionalNumber('ratio', raw['ratio'], 0.1, { min: 0, max: 1 });
  const window = optionalNumber('window', raw['window'], 10_000, { min: 1 });
  const minRetries = optionalNumber('minRetries', raw['minRetries'], 10, { min: 0, integer: true });
  const clock = optionalClock('scheduler', raw['scheduler'], asyncScheduler);
  const counts = new SlidingWindow<'attempt' | 'retry'>(window, () => clock.now());
  return {
    get retryRatio() {
      const attempts = counts.count('attempt');
      return attempts === 0 ? 0 : counts.count('retry') / attempts;
    },
    onAttempt(isRetry) {
      counts.add('attempt');
      if (isRetry) counts.add('retry');
    },
    onSuccess() {
      // The ratio counts attempts, not outcomes.
    },
    onTransientFailure() {
      // The ratio counts attempts, not outcomes.
    },
    canRetry() {
      const retries = counts.count('retry');
      if (retries < minRetries) return true;
      // Would the share stay within the ratio once this retry is sent?
      return retries + 1 <= ratio * (counts.count('attempt') + 1);
    },
  };
}
