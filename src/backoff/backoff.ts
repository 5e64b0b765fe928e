/**
 * The backoff contract: a backoff is an immutable value whose `next()` returns the backoff after one
 * more failure. Nothing carries hidden counters, so a policy is easy to test and to write.
 * @module
 */
import { MAX_DELAY_MS } from '../internal/max-delay.js';

/** A source of uniformly distributed numbers in [0, 1], like `Math.random`. Injected for tests. */
export type RandomSource = () => number;

export { MAX_DELAY_MS };

/** One step of a backoff: the wait that follows a failure, and how to get the step after it. */
export interface Backoff {
  /** The wait, in milliseconds, from the start of the failed attempt to the start of the next one. */
  readonly delay: number;
  /** The backoff after one more consecutive failure. */
  next(random: RandomSource): Backoff;
}

/**
 * A backoff policy: a factory for the first step after a reset.
 *
 * @example A constant one-second policy, written by hand:
 * ```ts
 * const everySecond: BackoffPolicy = {
 *   first: () => ({ delay: 1000, next() { return this; } }),
 * };
 * ```
 */
export interface BackoffPolicy {
  /** The backoff that applies to the first attempt after a reset. */
  first(random: RandomSource): Backoff;
  /**
   * The policy's first wait and its longest wait (the cap, jitter included), ms. A manager with
   * `serverHints: 'exact'` clamps a server's retry hint into this range, so that no server can make a
   * client dial faster than the policy's first wait or wait longer than its cap. Without it: the
   * first step's delay, and no cap.
   */
  readonly bounds?: { readonly min: number; readonly max: number };
}

/**
 * Clamps a delay into [0, {@link MAX_DELAY_MS}]. Anything but a number (a custom policy's `delay` is
 * read unchecked) and NaN are programming errors and throw a RangeError saying what was found.
 */
export function clampDelay(delay: unknown): number {
  if (typeof delay !== 'number' || Number.isNaN(delay)) {
    const found = typeof delay === 'number' ? 'NaN' : typeof delay;
    throw new RangeError(
      `redialer: the backoff policy returned ${found} as a delay; expected a number of milliseconds`,
    );
  }
  return Math.min(MAX_DELAY_MS, Math.max(0, delay));
}

/**
 * Draws a number uniformly from [low, high] using `random`. A random source that returns anything
 * but a number in [0, 1] is rejected with a RangeError, so a broken source cannot yield NaN waits.
 */
export function uniform(random: RandomSource, low: number, high: number): number {
  const r = random();
  if (typeof r !== 'number' || !(r >= 0 && r <= 1)) {
    throw new RangeError(`redialer: option "random" must return a number in [0, 1], got ${String(r)}`);
  }
  return low + r * (high - low);
}
