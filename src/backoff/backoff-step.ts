/**
 * One step of a backoff policy, taken the same way by every component that waits on one: the
 * connection machine, `happyEyeballs()`, `failover()`, `circuitBreaker()`, `retry()` and the BullMQ
 * strategy. A policy that throws, or returns a delay that is not a finite number, gives a
 * {@link BackoffPolicyError} instead of a wait, and each caller stops retrying with it: a broken
 * policy can never turn into a 0 ms wait. A negative delay counts as 0; none exceeds
 * {@link MAX_DELAY_MS}.
 * @module
 */
import { BackoffPolicyError } from '../errors/backoff-policy-error.js';
import { describeSafely } from '../internal/read-safely.js';
import { type Backoff, type BackoffPolicy, MAX_DELAY_MS, type RandomSource } from './backoff.js';

/** The outcome of {@link stepBackoff}: the next step and its delay, or why the policy gave none. */
export type BackoffStep =
  | { readonly ok: true; readonly backoff: Backoff; readonly delay: number }
  | { readonly ok: false; readonly error: BackoffPolicyError };

function describeDelay(delay: unknown): string {
  if (typeof delay === 'number') return String(delay);
  if (typeof delay === 'string') return `the string ${JSON.stringify(delay)}`;
  return typeof delay === 'object' && delay !== null ? 'an object' : String(delay);
}

/**
 * The step after `current` (or the policy's first step when `current` is undefined, after a reset):
 * its delay in [0, {@link MAX_DELAY_MS}], measured from the start of the attempt that failed.
 */
export function stepBackoff(policy: BackoffPolicy, current: Backoff | undefined, random: RandomSource): BackoffStep {
  let backoff: Backoff;
  let delay: unknown;
  try {
    backoff = current === undefined ? policy.first(random) : current.next(random);
    delay = (backoff as { delay?: unknown } | null | undefined)?.delay;
  } catch (thrown) {
    return { ok: false, error: BackoffPolicyError.threw(thrown) };
  }
  if (typeof delay !== 'number' || !Number.isFinite(delay)) {
    const value: unknown = backoff;
    const what =
      typeof value === 'object' && value !== null
        ? `${describeDelay(delay)} as a delay`
        : `${describeSafely(value)} as a step`;
    return {
      ok: false,
      error: new BackoffPolicyError(
        `redialer: the backoff policy returned ${what}; expected a finite number of milliseconds (to stop retrying, use maxRetries or permanent())`,
      ),
    };
  }
  return { ok: true, backoff, delay: Math.min(MAX_DELAY_MS, Math.max(0, delay)) };
}
