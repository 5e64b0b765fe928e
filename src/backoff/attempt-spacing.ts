/**
 * The floor under every backoff: however a policy is configured (a 0 ms initial backoff, a constant
 * 0, a server hint of 0), attempt starts are spaced by a token bucket. Up to `burst` attempts may start
 * back to back; after that, one more may start every `interval` ms. Over any window of W ms, at most
 * `burst + W / interval` attempts start, so a server that keeps failing never meets a hot loop.
 *
 * The rule is a pure value, like a backoff: the connection machine and the retry decision both carry a
 * {@link StartCredit} and ask it when the next attempt may start. With the default (5 attempts, then
 * one per 100 ms), 0 ms waits keep their meaning for the first few retries ("retry once at once",
 * tests), and any 10 s window holds at most 105 attempt starts.
 * @module
 */
import { checkOptionsObject, optionalNumber } from '../internal/validate.js';
import { MAX_DELAY_MS } from './backoff.js';

/** The floor on the spacing of attempt starts: a token bucket of `burst` starts refilled one per `interval` ms. */
export interface AttemptSpacing {
  /** How many attempts may start back to back (an integer >= 1; Infinity disables the floor). */
  readonly burst: number;
  /** The sustained spacing of attempt starts, in milliseconds, once the burst is spent (0 disables the floor). */
  readonly interval: number;
}

/**
 * The default floor: 5 attempts back to back, then at most one every 100 ms — at most 105 attempt starts
 * in any 10 s window, whatever the backoff policy and the server's hints say.
 */
export const DEFAULT_ATTEMPT_SPACING: AttemptSpacing = Object.freeze({ burst: 5, interval: 100 });

/** The largest number of attempt starts that `spacing` allows in any window of `windowMs` ms. */
export function maxStartsIn(spacing: AttemptSpacing, windowMs: number): number {
  if (spacing.interval === 0 || spacing.burst === Infinity) return Infinity;
  return spacing.burst + Math.floor(windowMs / spacing.interval);
}

/**
 * How many attempts may start without waiting, as of time `at`. Immutable, like a backoff step. Full
 * credit is `{ tokens: Infinity, at: -Infinity }` (no attempt started yet).
 */
export interface StartCredit {
  /** Starts available at `at` (below 1: the next start must wait; negative after explicit early starts). */
  readonly tokens: number;
  /** When `tokens` was counted, on the scheduler clock. */
  readonly at: number;
}

/** The credit before any attempt has started. */
export const FULL_CREDIT: StartCredit = Object.freeze({ tokens: Infinity, at: -Infinity });

function disabled(spacing: AttemptSpacing): boolean {
  return spacing.interval === 0 || spacing.burst === Infinity;
}

function tokensAt(credit: StartCredit, now: number, spacing: AttemptSpacing): number {
  if (credit.tokens === Infinity || credit.at === -Infinity) return spacing.burst;
  return Math.min(spacing.burst, credit.tokens + Math.max(0, now - credit.at) / spacing.interval);
}

/**
 * The earliest time at which another attempt may start under `spacing` (`-Infinity` when one may
 * start at any time).
 */
export function earliestStart(credit: StartCredit, spacing: AttemptSpacing): number {
  if (disabled(spacing) || credit.tokens >= 1) return -Infinity;
  return credit.at + (1 - credit.tokens) * spacing.interval;
}

/** The credit after an attempt starts at `now`. An explicit early start (a `connect()`) may overdraw it. */
export function spendStart(credit: StartCredit, now: number, spacing: AttemptSpacing): StartCredit {
  if (disabled(spacing)) return FULL_CREDIT;
  return { tokens: tokensAt(credit, now, spacing) - 1, at: now };
}

/**
 * Validates an `attemptSpacing` option (`name` is the option's name in messages) and fills in the
 * defaults. `{ interval: 0 }` is the explicit way to turn the floor off.
 */
export function resolveAttemptSpacing(name: string, value: unknown): AttemptSpacing {
  if (value === undefined) return DEFAULT_ATTEMPT_SPACING;
  const raw = checkOptionsObject(`option "${name}"`, value);
  const d = DEFAULT_ATTEMPT_SPACING;
  return Object.freeze({
    burst: optionalNumber(`${name}.burst`, raw['burst'], d.burst, { min: 1, integer: true, allowInfinity: true }),
    interval: optionalNumber(`${name}.interval`, raw['interval'], d.interval, { min: 0, max: MAX_DELAY_MS }),
  });
}
