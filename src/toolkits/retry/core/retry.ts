/**
 * `retry(operation, options)`: runs an async operation until it succeeds, fails permanently, or the
 * loop gives up. The decisions come from the pure {@link decideRetry}; this file only runs them:
 * one timer and one attempt at a time, both cancelled by the caller's signal and the deadline.
 * @module
 */
import type { Subscription } from 'rxjs';
import { FULL_CREDIT, spendStart } from '../../../backoff/attempt-spacing.js';
import type { Backoff } from '../../../backoff/backoff.js';
import { scheduleTimer } from '../../../internal/schedule-timer.js';
import { describeValue } from '../../../internal/validate.js';
import { AttemptTimeoutError } from '../timeouts/attempt-timeout-error.js';
import { handleFailure } from './handle-failure.js';
import { RetryError } from './retry-error.js';
import { emit } from './retry-event.js';
import { type ResolvedRetryPolicy, type RetryPolicyOptions, resolveRetryPolicy } from '../policy/retry-options.js';

/** What each attempt receives. */
export interface RetryAttemptContext {
  /** The attempt number, 1-based. */
  readonly attempt: number;
  /**
   * Aborted when the attempt is cut: by its timeout (reason: {@link AttemptTimeoutError}), by the
   * deadline, or by the caller's signal (reason: the caller's). Pass it on to fetch or gRPC.
   */
  readonly signal: AbortSignal;
  /** When the whole call must be done, on the scheduler clock (Infinity for never). */
  readonly deadline: number;
}

/**
 * A per-attempt timeout that adapts to what it observes — {@link RtoTracker} is one (RFC 6298).
 * It may be shared by many calls to the same destination.
 */
export interface AdaptiveTimeout {
  /** The timeout for the next attempt, in milliseconds. */
  current(): number;
  /** An attempt succeeded after `elapsed` ms. */
  onSuccess(elapsed: number): void;
  /** An attempt was cut by the timeout. */
  onTimeout(): void;
}

/** Options of {@link retry}. */
export interface RetryOptions extends RetryPolicyOptions {
  /** Aborts the wait and the attempt in flight; `retry()` then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * How long each attempt may take: a number of milliseconds, or an {@link AdaptiveTimeout} such as
   * an {@link RtoTracker}. A cut attempt fails with {@link AttemptTimeoutError}, a transient failure
   * that may have reached the server. @defaultValue none
   */
  readonly attemptTimeout?: number | AdaptiveTimeout;
}

/** How an attempt ended; `cut` says which of our own timers ended it, if one did. */
type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown; readonly cut: 'deadline' | 'timeout' | undefined };

function resolveAttemptTimeout(value: unknown): AdaptiveTimeout | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!(value > 0)) {
      throw new RangeError(`redialer: option "attemptTimeout" must be a number > 0, got ${describeValue(value)}`);
    }
    return { current: () => value, onSuccess: () => undefined, onTimeout: () => undefined };
  }
  if (!hasFunctions(value, ['current', 'onSuccess', 'onTimeout'])) {
    throw new TypeError(
      `redialer: option "attemptTimeout" must be a number or an object with current(), onSuccess(), onTimeout(), got ${describeValue(value)}`,
    );
  }
  return value as AdaptiveTimeout;
}

function hasFunctions(value: unknown, names: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((n) => typeof (value as Record<string, unknown>)[n] === 'function')
  );
}

function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (
    !hasFunctions(value, ['addEventListener', 'removeEventListener']) ||
    typeof (value as { aborted?: unknown }).aborted !== 'boolean'
  ) {
    throw new TypeError(`redialer: option "signal" must be an AbortSignal, got ${describeValue(value)}`);
  }
  return value as AbortSignal;
}

/**
 * Runs `operation` until it succeeds, and retries transient failures with backoff.
 *
 * - It stops at `maxAttempts` or at `totalTimeout`, whichever comes first, and then rejects with a
 *   {@link RetryError} carrying the attempt count, the reason and the last failure.
 * - A permanent failure (see {@link createClassifier}) is rethrown at once, unchanged but marked so
 *   that an outer retry layer does not retry it again.
 * - `signal` aborts both the wait and the attempt in flight (whose own signal is aborted too); the
 *   promise rejects with the signal's reason.
 * - `Retry-After` and gRPC pushback (cut to `maxRetryAfter`) can lengthen the backoff, never shorten
 *   it; a hint beyond the deadline gives up at once. Attempt starts keep to `attemptSpacing`.
 * - Waits are measured from the attempt's start, as gRPC's are: a slow failure eats into its own
 *   wait (a server hint still counts from the failure). An attempt cut by a timeout is abandoned: whatever it
 *   settles with later is ignored, so pass `signal` on to the work it starts.
 *
 * Bad options throw a TypeError or RangeError at once, before any attempt.
 *
 * @example
 * ```ts
 * const response = await retry(async ({ signal }) => {
 *   const res = await fetch(url, { signal });
 *   if (!res.ok) throw new HttpResponseError(res, { method: 'GET' });
 *   return res;
 * }, { maxAttempts: 4, totalTimeout: 10_000 });
 * ```
 */
export function retry<T>(
  operation: (context: RetryAttemptContext) => T | PromiseLike<T>,
  options: RetryOptions = {},
): Promise<T> {
  if (typeof operation !== 'function') {
    throw new TypeError(`redialer: retry() needs an operation function, got ${describeValue(operation)}`);
  }
  const policy = resolveRetryPolicy(options);
  const signal = checkSignal(options.signal);
  const timeout = resolveAttemptTimeout(options.attemptTimeout);
  return run(operation, policy, signal, timeout);
}

async function run<T>(
  operation: (context: RetryAttemptContext) => T | PromiseLike<T>,
  policy: ResolvedRetryPolicy,
  signal: AbortSignal | undefined,
  timeout: AdaptiveTimeout | undefined,
): Promise<T> {
  const { scheduler, budget, metrics, onUnhandledError } = policy;
  // Not throwIfAborted(): older browsers' signals lack it.
  if (signal?.aborted === true) throw signal.reason;
  const deadline = scheduler.now() + policy.totalTimeout;
  let backoff: Backoff | undefined;
  let credit = FULL_CREDIT;
  for (let attempt = 1; ; attempt++) {
    emit(metrics, { type: 'attempt', attempt }, onUnhandledError);
    budget?.onAttempt(attempt > 1);
    const started = scheduler.now();
    credit = spendStart(credit, started, policy.attemptSpacing);
    const outcome = await runAttempt(operation, attempt, deadline, policy, signal, timeout);
    if (outcome.ok) {
      budget?.onSuccess();
      timeout?.onSuccess(scheduler.now() - started);
      emit(metrics, { type: 'success', attempt }, onUnhandledError);
      return outcome.value;
    }
    const { error } = outcome;
    if (outcome.cut === 'deadline') {
      // The deadline cut the attempt: counted against the budget, never retried.
      budget?.onTransientFailure();
      emit(metrics, { type: 'give-up', attempt, reason: 'deadline', error }, onUnhandledError);
      throw new RetryError('deadline', attempt, error, 'the deadline cut the attempt in flight');
    }
    if (outcome.cut === 'timeout') timeout?.onTimeout();
    const next = handleFailure(error, { attempt, backoff, deadline, credit, startedAt: started }, policy);
    if (next.type === 'throw') throw next.error;
    backoff = next.backoff;
    await sleep(next.delay, policy, signal);
  }
}

/** Runs one attempt, cut by its timeout, the deadline or the caller's signal. Rejects only with the signal's reason. */
function runAttempt<T>(
  operation: (context: RetryAttemptContext) => T | PromiseLike<T>,
  attempt: number,
  deadline: number,
  policy: ResolvedRetryPolicy,
  signal: AbortSignal | undefined,
  timeout: AdaptiveTimeout | undefined,
): Promise<Outcome<T>> {
  const { scheduler } = policy;
  return new Promise<Outcome<T>>((resolve, reject) => {
    const controller = new AbortController();
    let timer: Subscription | undefined;
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      timer?.unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    // Read the adaptive timeout before anything is registered, so that a failing one leaves nothing behind.
    let own: number | undefined;
    try {
      own = timeout?.current();
    } catch (error) {
      reject(error);
      return;
    }
    if (own !== undefined && !(typeof own === 'number' && own > 0)) {
      reject(
        new RangeError(
          `redialer: the adaptive attempt timeout returned ${describeValue(own)}; it must be a number > 0`,
        ),
      );
      return;
    }
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      settle(() => {
        controller.abort(reason);
        reject(reason);
      });
    };
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });

    const now = scheduler.now();
    const left = deadline - now;
    const limit = Math.min(own ?? Infinity, left);
    if (limit !== Infinity) {
      const cut = left <= (own ?? Infinity) ? 'deadline' : 'timeout';
      // Never early, and a deadline past 2^31 - 1 ms away is waited in full.
      timer = scheduleTimer(scheduler, limit, () => {
        const error = new AttemptTimeoutError(attempt, Math.round(limit));
        settle(() => {
          controller.abort(error);
          resolve({ ok: false, error, cut });
        });
      });
    }

    let result: T | PromiseLike<T>;
    try {
      result = operation({ attempt, signal: controller.signal, deadline });
    } catch (error) {
      settle(() => {
        resolve({ ok: false, error, cut: undefined });
      });
      return;
    }
    Promise.resolve(result).then(
      (value) => {
        settle(() => {
          resolve({ ok: true, value });
        });
      },
      (error: unknown) => {
        settle(() => {
          resolve({ ok: false, error, cut: undefined });
        });
      },
    );
  });
}

/** Waits `delay` ms on the scheduler; the caller's signal cancels the timer and rejects with its reason. */
function sleep(delay: number, policy: ResolvedRetryPolicy, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    let done = false;
    const onAbort = (): void => {
      done = true;
      timer.unsubscribe();
      reject(signal?.reason);
    };
    const timer = scheduleTimer(policy.scheduler, delay, () => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    // A scheduler that ran the timer synchronously has already resolved: add no listener.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the callback above
    if (!done) signal?.addEventListener('abort', onAbort, { once: true });
  });
}
