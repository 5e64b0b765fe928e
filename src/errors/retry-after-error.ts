import { MAX_DELAY_MS } from '../internal/max-delay.js';
import { checkNumber } from '../internal/validate.js';
import { brand, hasBrand } from '../internal/brand.js';
import { readSafely } from '../internal/read-safely.js';
import { formatDuration } from '../internal/format-duration.js';

/**
 * A failure with the server's word on when to come back (a WebSocket close 1012/1013 with a delay
 * hint, an HTTP 503 with Retry-After on an upgrade). A connector that fails with one makes the
 * manager wait at least `delay` ms from now before the next attempt — longer if its own backoff says
 * so, never shorter. `resetBackoff()` still starts an attempt at once.
 *
 * @example
 * ```ts
 * ws.onclose = (event) =>
 *   event.code === 1013 ? subscriber.error(retryAfter(new Error('try again later'), 30_000)) : …;
 * ```
 */
export class RetryAfterError extends Error {
  override readonly name = 'RetryAfterError';
  /** The least wait the server asked for, in milliseconds (clamped to the largest timer). */
  readonly delay: number;

  constructor(delay: number, options?: ErrorOptions) {
    const ms = Math.min(MAX_DELAY_MS, checkNumber('delay', delay, { min: 0, allowInfinity: true }));
    const message = readSafely(options?.cause, 'message');
    super(
      `the server asked to retry after ${formatDuration(ms)}${typeof message === 'string' ? `: ${message}` : ''}`,
      options,
    );
    this.delay = ms;
    brand(this, 'RetryAfterError');
  }
}

/**
 * The wait a {@link RetryAfterError} asks for, validated: a number of milliseconds in
 * [0, {@link MAX_DELAY_MS}] (a longer one is cut to it), or undefined when `value` is not one or its
 * `delay` is not a number >= 0 (a hand-made value with the brand and a NaN delay asks for nothing).
 */
export function retryAfterDelayOf(value: unknown): number | undefined {
  if (!hasBrand(value, 'RetryAfterError')) return undefined;
  const delay = readSafely(value, 'delay');
  return typeof delay === 'number' && delay >= 0 ? Math.min(MAX_DELAY_MS, delay) : undefined;
}

/**
 * Whether `value` is a {@link RetryAfterError} (from any copy of redialer) whose `delay` is a number
 * >= 0. Read the wait with {@link retryAfterDelayOf}, which also bounds it.
 */
export function isRetryAfterError(value: unknown): value is RetryAfterError {
  return retryAfterDelayOf(value) !== undefined;
}

/** Wraps `cause` in a {@link RetryAfterError} asking for at least `delay` ms before the next attempt. */
export function retryAfter(cause: unknown, delay: number): RetryAfterError {
  return new RetryAfterError(delay, { cause });
}
