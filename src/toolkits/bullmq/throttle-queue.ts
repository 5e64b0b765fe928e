/**
 * Provider-wide throttling: when a provider answers 429 with Retry-After, every job of the queue
 * would meet the same answer, so the whole queue pauses through BullMQ's own rate limiting
 * (`queue.rateLimit()` and `RateLimitError`) instead of each job burning an attempt.
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { RateLimitError } from 'bullmq';
import { isRetryAfterError } from '../../errors/retry-after-error.js';
import { httpStatusOf, readRetryAfter } from '../retry/index.js';
import { checkOptionsObject, describeValue, optionalFunction, optionalNumber } from '../../internal/validate.js';

/** What {@link throttleQueue} needs of a BullMQ `Queue` (its `rateLimit(ms)` method). */
export interface QueueRateLimiter {
  /** Pauses the queue's workers for `expireTimeMs` milliseconds (BullMQ's global rate limit). */
  rateLimit(expireTimeMs: number): Promise<void>;
}

/** Options of {@link throttleQueue}. */
export interface ThrottleQueueOptions {
  /** The HTTP statuses that mean "the whole provider is throttling". @defaultValue [429] */
  readonly statuses?: readonly number[];
  /** The longest pause honoured, in ms; longer Retry-After values are cut to it. @defaultValue 3600000 */
  readonly maxDelay?: number;
  /** The clock for Retry-After dates, epoch ms. @defaultValue `Date.now` */
  readonly now?: () => number;
}

/** A queue paused by {@link throttleQueue}: throw `error` from the processor. */
export interface QueueThrottled {
  /** BullMQ's `RateLimitError`: the job goes back to waiting without counting an attempt. */
  readonly error: RateLimitError;
  /** How long the queue is paused, in ms. */
  readonly delay: number;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function statusOf(error: unknown): number | undefined {
  return httpStatusOf(error) ?? (isRetryAfterError(error) ? httpStatusOf(error.cause) : undefined);
}

function hintOf(error: unknown, now: number): number | undefined {
  if (isRetryAfterError(error)) return error.delay;
  return readRetryAfter(error, now) ?? readRetryAfter(field(error, 'response'), now);
}

/**
 * If `error` is a throttling answer (HTTP 429 by default) with a `Retry-After`, pauses the
 * queue for that long with `queue.rateLimit()` and returns the `RateLimitError` to throw; otherwise
 * returns undefined and changes nothing. The pause applies to every worker of the queue and does not
 * count as an attempt of the job.
 *
 * BullMQ makes the other workers wait for such a pause only when they have a rate `limiter` (or the
 * queue a global rate limit, `queue.setGlobalRateLimit()`): give every worker one, e.g.
 * `limiter: { max: 10_000, duration: 1000 }`, a limit that never binds by itself (bullmq 6.7
 * `moveToActive-11.lua`: the limiter key is read only when a maximum is set). Without it only the
 * worker that threw waits.
 *
 * @example
 * ```ts
 * const worker = new Worker('mail', async (job) => {
 *   try {
 *     return await send(job.data);
 *   } catch (error) {
 *     throw (await throttleQueue(queue, error))?.error ?? error;
 *   }
 * }, { connection, limiter: { max: 10_000, duration: 1000 } });
 * ```
 */
export async function throttleQueue(
  queue: QueueRateLimiter,
  error: unknown,
  options: ThrottleQueueOptions = {},
): Promise<QueueThrottled | undefined> {
  if (typeof (queue as Partial<QueueRateLimiter> | null)?.rateLimit !== 'function') {
    throw new TypeError(`redialer: throttleQueue needs a queue with rateLimit(), got ${describeValue(queue)}`);
  }
  const raw = checkOptionsObject('throttleQueue options', options);
  const statuses = raw['statuses'] ?? [429];
  if (!Array.isArray(statuses))
    throw new TypeError(
      `redialer: option "statuses" must be an array of HTTP statuses, got ${describeValue(statuses)}`,
    );
  const maxDelay = optionalNumber('maxDelay', raw['maxDelay'], 3_600_000, { min: 1, allowInfinity: true });
  const now = optionalFunction('now', raw['now'], Date.now);
  const status = statusOf(error);
  if (status === undefined || !(statuses as unknown[]).includes(status)) return undefined;
  const hint = hintOf(error, now());
  if (hint === undefined) return undefined;
  // Whole milliseconds, at least 1: rateLimit(0) would not pause at all.
  const delay = Math.max(1, Math.ceil(Math.min(hint, maxDelay, MAX_DELAY_MS)));
  await queue.rateLimit(delay);
  return { error: new RateLimitError(), delay };
}
