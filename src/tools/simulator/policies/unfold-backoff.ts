/**
 * Builds a backoff value from a step function, for policies whose next wait depends on more than
 * the previous wait (a retry count, a per-client constant).
 * @module
 */
import { type Backoff, type BackoffPolicy, type RandomSource, clampDelay } from '../../../backoff/backoff.js';

class UnfoldStep<S> implements Backoff {
  readonly delay: number;

  constructor(
    private readonly state: S,
    private readonly advance: (state: S, random: RandomSource) => S,
    private readonly delayOf: (state: S) => number,
  ) {
    this.delay = clampDelay(delayOf(state));
  }

  next(random: RandomSource): Backoff {
    return new UnfoldStep(this.advance(this.state, random), this.advance, this.delayOf);
  }
}

/**
 * A policy whose first step is `start(random)` and each later step `advance(previous, random)`;
 * `delayOf` reads the wait out of a step. Infinity means "never again" (clamped to the longest timer).
 *
 * @example
 * ```ts
 * // 1 s, 2 s, 3 s, ...
 * const linear = unfoldBackoff(() => 1, (n) => n + 1, (n) => n * 1000);
 * ```
 */
export function unfoldBackoff<S>(
  start: (random: RandomSource) => S,
  advance: (state: S, random: RandomSource) => S,
  delayOf: (state: S) => number,
): BackoffPolicy {
  return { first: (random) => new UnfoldStep(start(random), advance, delayOf) };
}
