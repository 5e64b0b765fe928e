/**
 * A server's hint on when to come back (Retry-After, gRPC pushback, a WebSocket 1012/1013 close
 * reason) is a floor on the backoff, never a replacement for it, and clients told the same wait must
 * not come back in lockstep. This is the one place that turns a hint into a wait.
 * @module
 */
import type { RandomSource } from './backoff.js';
import { clampDelay, uniform } from './backoff.js';

/** The spread added to a server's hint so that clients told the same wait do not return together. */
export const HINT_JITTER = 0.2;

/**
 * The wait after a failure that carried a server hint of `hint` ms, given the backoff's own `backoff`
 * ms: the hint, cut to `maxHint`, then spread by up to `jitter` ({@link HINT_JITTER}) of itself — upwards (never
 * sooner than the server asked) unless that would pass `maxHint`, and downwards at the cap so the
 * spread never collapses to one value — and never less than `backoff`. A hint of 0 (or a date in the
 * past) therefore leaves the backoff as it is. The result is within
 * [backoff, max(backoff, maxHint)] and within [0, 2^31 - 1].
 */
export function hintedDelay(
  hint: number,
  backoff: number,
  maxHint: number,
  random: RandomSource,
  jitter = HINT_JITTER,
): number {
  const value = Math.min(clampDelay(hint), maxHint);
  const spread = uniform(random, 0, value * jitter);
  const spreadValue = value + spread <= maxHint ? value + spread : value - spread;
  return clampDelay(Math.max(backoff, spreadValue));
}
