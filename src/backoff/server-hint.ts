/**
 * A server's hint on when to come back (Retry-After, gRPC pushback, a WebSocket 1012/1013 close
 * reason) is a floor on the backoff, never a replacement for it, and clients told the same wait must
 * not come back in lockstep. This is the one place that turns a hint into a wait.
 * @module
 */
import { type BackoffPolicy, MAX_DELAY_MS, type RandomSource, clampDelay, uniform } from './backoff.js';
import { formatDuration } from '../internal/format-duration.js';

/** The spread added to a server's hint so that clients told the same wait do not return together. */
export const HINT_JITTER = 0.2;

/** The least default ceiling on a server's hint: gRPC's MAX_BACKOFF, 120 s. */
export const MIN_HINT_CEILING = 120_000;

/**
 * The default ceiling on a server's hint for a client on `policy` (its `maxRetryAfter` when not
 * given): the greater of the policy's longest wait (`bounds.max`, jitter included) and 120 s. No
 * server can hold such a client longer than its own backoff would, or two minutes.
 */
export function defaultHintCeiling(policy: BackoffPolicy): number {
  const cap = policy.bounds?.max;
  const own = typeof cap === 'number' && Number.isFinite(cap) ? cap : 0;
  return Math.min(MAX_DELAY_MS, Math.max(MIN_HINT_CEILING, own));
}

/** A server's hint after {@link boundHint}: the wait it may ask for, and what it asked. */
export interface BoundedHint {
  /** The hint cut to the ceiling, ms. */
  readonly delay: number;
  /** What the server asked for, ms. */
  readonly asked: number;
  /** Whether the ceiling cut it. */
  readonly cut: boolean;
}

/**
 * Reads a hint's value: anything but a number >= 0 (NaN, a negative number, a string, undefined)
 * asks for nothing and gives undefined; a longer one than `ceiling` is cut to it.
 */
export function boundHint(hint: unknown, ceiling: number): BoundedHint | undefined {
  if (typeof hint !== 'number' || !(hint >= 0)) return undefined;
  return hint > ceiling ? { delay: ceiling, asked: hint, cut: true } : { delay: hint, asked: hint, cut: false };
}

/** A note for traces and logs on a bounded hint: `the server asked for at least 3 s` (and the cut). */
export function describeHint(hint: BoundedHint, option = 'maxRetryAfter'): string {
  const asked = `the server asked for at least ${formatDuration(hint.asked)}`;
  return hint.cut ? `${asked}; cut to ${option} (${formatDuration(hint.delay)})` : asked;
}

/**
 * The wait after a failure that carried a server hint of `hint` ms, given the backoff's own `backoff`
 * ms: the hint, cut to `maxHint`, then spread upwards by up to `jitter` ({@link HINT_JITTER}) of
 * itself but never past `maxHint`, and never less than `backoff`. The client therefore never comes
 * back sooner than the server asked (or than the ceiling, for a longer hint), and clients told the
 * same wait spread over [hint, min(hint × (1 + jitter), maxHint)]; hints cut to the ceiling meet
 * there, which is why the default ceilings are the policy's own longest wait. A hint of 0 (or a date
 * in the past) leaves the backoff as it is. The result is within [backoff, max(backoff, maxHint)] and
 * within [0, 2^31 - 1].
 */
export function hintedDelay(
  hint: number,
  backoff: number,
  maxHint: number,
  random: RandomSource,
  jitter = HINT_JITTER,
): number {
  return clampDelay(Math.max(backoff, hintFloor(hint, maxHint, random, jitter)));
}

/**
 * The part of {@link hintedDelay} that is the server's alone: the hint cut to `maxHint` and spread
 * upwards (one draw of `random`), without the backoff under it. The least wait a client told `hint`
 * may take, whatever resets its backoff meanwhile.
 */
export function hintFloor(hint: number, maxHint: number, random: RandomSource, jitter = HINT_JITTER): number {
  const value = Math.min(clampDelay(hint), maxHint);
  const spread = uniform(random, 0, value * jitter);
  return clampDelay(Math.min(value + spread, maxHint));
}

const RETRY_AFTER = /retry[-_ ]?after\s*[=:]?\s*(\d+(?:\.\d+)?)\s*(ms|s)?\b/i;
const BARE_NUMBER = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*$/i;

/**
 * Reads a delay hint from a server's text (a WebSocket close reason, gRPC GOAWAY debug data), in milliseconds: `retry-after=30`, `Retry-After: 30`,
 * `retry after 1500ms`, or a bare `30` / `30s` / `1500ms`. A number without a unit is seconds, as in
 * HTTP's Retry-After. Returns undefined when the reason carries no hint.
 *
 * @example
 * ```ts
 * parseCloseReasonDelay('overloaded; retry-after=30'); // 30000
 * ```
 */
export function parseCloseReasonDelay(reason: string): number | undefined {
  const match = RETRY_AFTER.exec(reason) ?? BARE_NUMBER.exec(reason);
  if (match === null) return undefined;
  const value = Number(match[1]);
  if (!Number.isFinite(value)) return undefined;
  return match[2]?.toLowerCase() === 'ms' ? value : value * 1000;
}
