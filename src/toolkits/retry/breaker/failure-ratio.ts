/**
 * The failure-ratio trip rule (Polly v8's `CircuitBreakerStrategyOptions`): the breaker opens when
 * failures / calls over a sliding time window reach a ratio, once the window holds enough calls.
 *
 * The window follows the bucket rule of budgets/sliding-window.ts (`bucketAt`, `bucketInWindow`: ten
 * buckets aligned to the clock, a bucket counting while any part of it lies inside the window), kept
 * here as an immutable value, because a trip strategy's state must be one: `SlidingWindow` is mutable
 * and reads its own clock, while here the time arrives with each call.
 * @module
 */
import { bucketAt, bucketInWindow } from '../budgets/sliding-window.js';
import type { TripStrategy } from './trip-strategy.js';

/** The rule's parameters, checked by the caller. */
export interface FailureRatioRules {
  /** Open when failures / calls reach this, in (0, 1]. */
  readonly failureRatio: number;
  /** The calls the window must hold before the ratio is judged, an integer >= 1. */
  readonly minimumThroughput: number;
  /** The window length in ms, >= 1. */
  readonly window: number;
}

/** The calls that ended in one bucket of the window. */
export interface RatioBucket {
  /** The bucket's start on the clock (a multiple of the bucket length); -Infinity while unused. */
  readonly start: number;
  readonly successes: number;
  readonly failures: number;
}

/** The rule's state: the window's buckets, as a ring indexed by the bucket's slot on the clock. */
export type RatioWindow = readonly RatioBucket[];

/** The number of buckets in a window, as in `SlidingWindow`. */
export const RATIO_BUCKETS = 10;

const UNUSED: RatioBucket = Object.freeze({ start: -Infinity, successes: 0, failures: 0 });
const EMPTY: RatioWindow = Object.freeze(Array.from({ length: RATIO_BUCKETS }, () => UNUSED));

/** The successes and failures in `window` that lie inside the last `windowMs` at `now`. */
export function ratioCounts(
  window: RatioWindow,
  windowMs: number,
  now: number,
): { readonly successes: number; readonly failures: number } {
  const bucketMs = windowMs / RATIO_BUCKETS;
  let successes = 0;
  let failures = 0;
  for (const bucket of window) {
    if (bucketInWindow(bucket.start, bucketMs, windowMs, now)) {
      successes += bucket.successes;
      failures += bucket.failures;
    }
  }
  return { successes, failures };
}

/**
 * Opens when, over the last `window` ms, at least `minimumThroughput` calls ended and the share of
 * failures among them reached `failureRatio`. Late calls count too: the window is about the
 * dependency's health over time, whatever the breaker's state was when a call started.
 */
export function failureRatio(rules: FailureRatioRules): TripStrategy<RatioWindow> {
  const bucketMs = rules.window / RATIO_BUCKETS;
  return {
    initial: () => EMPTY,
    record: (window, outcome, now) => {
      const { index, start } = bucketAt(now, bucketMs, RATIO_BUCKETS);
      const old = window[index] ?? UNUSED;
      const bucket = old.start === start ? old : { start, successes: 0, failures: 0 };
      const next = window.slice();
      next[index] =
        outcome.kind === 'success'
          ? { start, successes: bucket.successes + 1, failures: bucket.failures }
          : { start, successes: bucket.successes, failures: bucket.failures + 1 };
      return next;
    },
    shouldTrip: (window, now) => {
      const { successes, failures } = ratioCounts(window, rules.window, now);
      const calls = failures + successes;
      return calls >= rules.minimumThroughput && failures / calls >= rules.failureRatio;
    },
  };
}
