/**
 * The effectful step after a failed attempt, shared by `retry()` and `retryBackoff()`: classify the
 * failure, charge the budget, run the pure decision, report the event, and say what to do next.
 * @module
 */
import type { Backoff } from '../../../backoff/backoff.js';
import { markRetriesExhausted } from './retries-exhausted.js';
import { type RetryLoopState, decideRetry, retryEventOf } from '../policy/retry-decision.js';
import { RetryError } from './retry-error.js';
import { emit } from './retry-event.js';
import type { ResolvedRetryPolicy } from '../policy/retry-options.js';

/** What follows a failure: wait and retry, or throw `error` (the original, or a RetryError). */
export type FailureOutcome =
  | { readonly type: 'retry'; readonly delay: number; readonly backoff: Backoff | undefined }
  | { readonly type: 'throw'; readonly error: unknown };

/** Handles the failure of attempt `state.attempt`; `state` is the loop's state after it. */
export function handleFailure(error: unknown, state: RetryLoopState, policy: ResolvedRetryPolicy): FailureOutcome {
  const { budget, metrics, onUnhandledError } = policy;
  const { attempt } = state;
  const classification = policy.classify(error);
  // gRFC A6 takes a token for the failure before it asks whether a retry is allowed.
  if (classification.kind === 'transient') budget?.onTransientFailure();
  const decision = decideRetry(error, classification, state, policy, {
    now: policy.scheduler.now(),
    budgetAllows: budget?.canRetry() ?? true,
  });
  emit(metrics, retryEventOf(decision, attempt, error), onUnhandledError);
  switch (decision.type) {
    case 'permanent':
      return { type: 'throw', error: markRetriesExhausted(error) };
    case 'policy-error':
      // A broken backoff policy ends the loop loudly: the call rejects with it (its cause: what the policy threw).
      return { type: 'throw', error: decision.error };
    case 'give-up':
      return { type: 'throw', error: new RetryError(decision.reason, attempt, error, decision.detail) };
    case 'retry':
      return { type: 'retry', delay: decision.delay, backoff: decision.backoff };
  }
}
