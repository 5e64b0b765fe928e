/**
 * A constant wait after every failure.
 * @module
 */
import { checkNumber } from '../internal/validate.js';
import { type Backoff, type BackoffPolicy, clampDelay } from './backoff.js';

/**
 * The same wait after every failure. Without jitter, clients that fail together retry together;
 * prefer {@link grpcBackoff} or {@link exponentialBackoff} for anything that many clients share.
 *
 * @example
 * ```ts
 * const policy = constantBackoff(2000);
 * ```
 */
export function constantBackoff(delay: number): BackoffPolicy {
  const step: Backoff = Object.freeze({
    delay: clampDelay(checkNumber('delay', delay, { min: 0, allowInfinity: true })),
    next: () => step,
  });
  return { first: () => step, bounds: { min: step.delay, max: step.delay } };
}
