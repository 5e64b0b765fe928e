/**
 * `retryBackoff()`: the RxJS operator form of the retry loop. Built on RxJS's own `retry({ delay })`,
 * which already resubscribes correctly and tears down on unsubscribe; this file adds the shared
 * decision (classification, hints, idempotency, budget, deadline) and the backoff state.
 * @module
 */
import { defer, type MonoTypeOperatorFunction, type Observable, retry as rxRetry, tap, throwError, timer } from 'rxjs';
import { FULL_CREDIT, spendStart } from '../../../backoff/attempt-spacing.js';
import type { Backoff } from '../../../backoff/backoff.js';
import { checkOptionsObject, optionalBoolean } from '../../../internal/validate.js';
import { handleFailure } from './handle-failure.js';
import { emit } from './retry-event.js';
import { type RetryPolicyOptions, resolveRetryPolicy } from '../policy/retry-options.js';

/** Options of {@link retryBackoff}. */
export interface RetryBackoffOptions extends RetryPolicyOptions {
  /**
   * Whether a value starts a new failure episode: the attempt count, the backoff and the deadline
   * (`totalTimeout`) start again after each value. Use it for long-lived streams. @defaultValue false
   */
  readonly resetOnSuccess?: boolean;
}

/**
 * Resubscribes to the source after transient errors, with the same policies and classification as
 * {@link retry}: attempt limit, total deadline, backoff, server hints, idempotency and retry budget.
 * Each subscription to the source is one attempt; its first value (or its completion) is a success.
 * A permanent error is passed on at once; giving up errors with a {@link RetryError}. Unsubscribing
 * cancels the wait. The deadline bounds the retrying, not a healthy subscription: cut slow attempts
 * with RxJS's `timeout()` before this operator.
 *
 * @example
 * ```ts
 * const quotes$ = defer(() => openQuoteStream()).pipe(
 *   retryBackoff({ maxAttempts: Infinity, resetOnSuccess: true, backoff: exponentialBackoff({ maxDelay: 30_000 }) }),
 * );
 * ```
 */
export function retryBackoff<T>(options: RetryBackoffOptions = {}): MonoTypeOperatorFunction<T> {
  const raw = checkOptionsObject('retryBackoff options', options);
  const policy = resolveRetryPolicy(options, 'retryBackoff options');
  const resetOnSuccess = optionalBoolean('resetOnSuccess', raw['resetOnSuccess'], false);
  const { scheduler, budget, metrics, onUnhandledError } = policy;

  return (source: Observable<T>) =>
    defer(() => {
      let attempt = 0;
      let backoff: Backoff | undefined;
      let deadline = scheduler.now() + policy.totalTimeout;
      let credit = FULL_CREDIT;
      let startedAt = scheduler.now();

      const oneAttempt = defer(() => {
        attempt++;
        const current = attempt;
        let succeeded = false;
        const succeed = (): void => {
          if (succeeded) return;
          succeeded = true;
          budget?.onSuccess();
          emit(metrics, { type: 'success', attempt: current }, onUnhandledError);
        };
        emit(metrics, { type: 'attempt', attempt: current }, onUnhandledError);
        startedAt = scheduler.now();
        credit = spendStart(credit, startedAt, policy.attemptSpacing);
        budget?.onAttempt(current > 1);
        return source.pipe(
          tap({
            next: () => {
              succeed();
              if (resetOnSuccess) {
                // The live subscription becomes attempt 1 of a new episode.
                attempt = 1;
                backoff = undefined;
                startedAt = scheduler.now();
                deadline = scheduler.now() + policy.totalTimeout;
              }
            },
            complete: succeed,
          }),
        );
      });

      return oneAttempt.pipe(
        rxRetry({
          delay: (error: unknown) => {
            const next = handleFailure(error, { attempt, backoff, deadline, credit, startedAt }, policy);
            if (next.type === 'throw') return throwError(() => next.error);
            backoff = next.backoff;
            return timer(next.delay, scheduler);
          },
        }),
      );
    });
}
