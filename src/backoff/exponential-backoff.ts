/**
 * Capped exponential backoff with the jitter variants of Marc Brooker's "Exponential Backoff And
 * Jitter" (AWS Architecture Blog, 2015). With v = min(maxDelay, initialDelay × multiplier^(n-1)):
 * `none` waits v, `full` uniform(0, v), `equal` v/2 + uniform(0, v/2), and `decorrelated`
 * min(maxDelay, uniform(initialDelay, 3 × previous wait)).
 * @module
 */
import { checkOptionsObject, optionalChoice, optionalNumber } from '../internal/validate.js';
import { type Backoff, type BackoffPolicy, MAX_DELAY_MS, type RandomSource, clampDelay, uniform } from './backoff.js';

/** How {@link exponentialBackoff} randomises each wait. */
export type JitterKind = 'none' | 'full' | 'equal' | 'decorrelated';

/** The jitter kinds, for validation and iteration. */
export const JITTER_KINDS: readonly JitterKind[] = Object.freeze(['none', 'full', 'equal', 'decorrelated']);

/** Options of {@link exponentialBackoff}; every time is in milliseconds. */
export interface ExponentialBackoffOptions {
  /** The first un-jittered wait (`decorrelated`: the lower bound of every wait). @defaultValue 1000 */
  readonly initialDelay?: number;
  /** Growth per failure (>= 1); `decorrelated` ignores it and uses Brooker's 3. @defaultValue 2 */
  readonly multiplier?: number;
  /** Cap on the wait (>= initialDelay). @defaultValue 30000 */
  readonly maxDelay?: number;
  /** Jitter kind. @defaultValue 'full' */
  readonly jitter?: JitterKind;
}

type Resolved = Required<ExponentialBackoffOptions>;

class ExponentialStep implements Backoff {
  constructor(
    readonly delay: number,
    /** `decorrelated`: the previous wait; otherwise the un-jittered value v. */
    private readonly value: number,
    private readonly options: Resolved,
  ) {}

  next(random: RandomSource): Backoff {
    const { multiplier, maxDelay, jitter, initialDelay } = this.options;
    if (jitter === 'decorrelated') {
      const sleep = Math.min(maxDelay, uniform(random, initialDelay, this.value * 3));
      return new ExponentialStep(clampDelay(sleep), sleep, this.options);
    }
    const value = Math.min(this.value * multiplier, maxDelay);
    return new ExponentialStep(jittered(jitter, value, random), value, this.options);
  }
}

function jittered(jitter: Exclude<JitterKind, 'decorrelated'>, value: number, random: RandomSource): number {
  switch (jitter) {
    case 'none':
      return clampDelay(value);
    case 'full':
      return clampDelay(uniform(random, 0, value));
    case 'equal':
      // min(): value/2 + value/2 can round one ulp above value.
      return clampDelay(Math.min(value, value / 2 + uniform(random, 0, value / 2)));
  }
}

/**
 * Capped exponential backoff with a choice of jitter.
 *
 * @example
 * ```ts
 * const policy = exponentialBackoff({ initialDelay: 100, maxDelay: 10_000, jitter: 'equal' });
 * ```
 */
export function exponentialBackoff(options: ExponentialBackoffOptions = {}): BackoffPolicy {
  const raw = checkOptionsObject('exponentialBackoff options', options);
  const initialDelay = optionalNumber('initialDelay', raw['initialDelay'], 1000, { min: 0, max: MAX_DELAY_MS });
  const resolved: Resolved = {
    initialDelay,
    multiplier: optionalNumber('multiplier', raw['multiplier'], 2, { min: 1 }),
    // Capped at the largest timer, so that no product or draw can overflow to Infinity or NaN.
    maxDelay: Math.min(
      MAX_DELAY_MS,
      optionalNumber('maxDelay', raw['maxDelay'], Math.max(30_000, initialDelay), {
        min: initialDelay,
        allowInfinity: true,
      }),
    ),
    jitter: optionalChoice('jitter', raw['jitter'], JITTER_KINDS, 'full'),
  };
  const { jitter } = resolved;
  return {
    bounds: { min: clampDelay(initialDelay), max: clampDelay(resolved.maxDelay) },
    first(random) {
      if (jitter === 'decorrelated') {
        // Brooker's decorrelated jitter starts from sleep = base: the first wait is uniform(base, 3 × base).
        const sleep = Math.min(resolved.maxDelay, uniform(random, initialDelay, initialDelay * 3));
        return new ExponentialStep(clampDelay(sleep), sleep, resolved);
      }
      return new ExponentialStep(jittered(jitter, initialDelay, random), initialDelay, resolved);
    },
  };
}
