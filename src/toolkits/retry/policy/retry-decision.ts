/**
 * The pure heart of every retry loop: given a failure and the loop's state, decide whether to retry,
 * after how long, or why not. No timers, no I/O — both `retry()` and `retryBackoff()` run it, and its
 * tests need no clock.
 * @module
 */
import { FULL_CREDIT, type StartCredit, earliestStart } from '../../../backoff/attempt-spacing.js';
import { type Backoff, clampDelay } from '../../../backoff/backoff.js';
import { stepBackoff } from '../../../backoff/backoff-step.js';
import { boundHint, hintedDelay } from '../../../backoff/server-hint.js';
import type { BackoffPolicyError } from '../../../errors/backoff-policy-error.js';
import { formatDuration } from '../../../internal/format-duration.js';
import { readSafely } from '../../../internal/read-safely.js';
import { type Classification, grpcCodeOf } from '../classification/classify.js';
import { type GrpcPushback, readGrpcPushback } from '../hints/grpc-pushback.js';
import { readRetryAfter } from '../hints/retry-after.js';
import type { GiveUpReason } from '../core/retry-error.js';
import type { DelaySource, RetryEvent } from '../core/retry-event.js';
import type { ResolvedRetryPolicy } from './retry-options.js';
import { giveUpOn, precheckRetry } from './retry-precheck.js';

/** Where a retry loop stands after a failed attempt. */
export interface RetryLoopState {
  /** The attempt that just failed (1-based). */
  readonly attempt: number;
  /** The backoff step of the last wait, or undefined when the next wait starts the policy afresh. */
  readonly backoff: Backoff | undefined;
  /** When the loop must be done, on the scheduler clock (Infinity for never). */
  readonly deadline: number;
  /**
   * The floor on attempt starts after the failed attempt started (see `attemptSpacing`).
   * @defaultValue full credit: no floor yet
   */
  readonly credit?: StartCredit;
  /**
   * When the failed attempt started, on the scheduler clock: the backoff's wait runs from it.
   * @defaultValue the failure's time (the wait runs from the failure)
   */
  readonly startedAt?: number;
}

/** The outside facts a decision needs. */
export interface DecisionEnv {
  /** The scheduler time of the failure. */
  readonly now: number;
  /** Whether the retry budget would allow a retry now. */
  readonly budgetAllows: boolean;
}

/** The outcome of {@link decideRetry}. */
export type RetryDecision =
  | {
      readonly type: 'retry';
      /** The wait before the next attempt, in ms. */
      readonly delay: number;
      /** What set the wait: the backoff, or a server hint that asked for longer. */
      readonly source: DelaySource;
      /** The backoff state to carry into the next failure. */
      readonly backoff: Backoff | undefined;
      readonly classification: Classification & { readonly kind: 'transient' };
    }
  | {
      readonly type: 'give-up';
      readonly reason: GiveUpReason;
      readonly detail: string;
      readonly classification: Classification & { readonly kind: 'transient' };
    }
  | { readonly type: 'permanent'; readonly classification: Classification & { readonly kind: 'permanent' } }
  /** The backoff policy threw or gave no finite delay: no retry follows (never a 0 ms one); `error` says why. */
  | { readonly type: 'policy-error'; readonly error: BackoffPolicyError };

/**
 * The event a retry loop reports for `decision` on the failure of `attempt` with `error`: a broken
 * backoff policy is reported as a permanent failure with the policy's error.
 */
export function retryEventOf(
  decision: RetryDecision | Omit<Extract<RetryDecision, { readonly type: 'retry' }>, 'backoff'>,
  attempt: number,
  error: unknown,
): RetryEvent {
  switch (decision.type) {
    case 'permanent':
      return { type: 'permanent', attempt, reason: decision.classification.reason, error };
    case 'policy-error':
      return { type: 'permanent', attempt, reason: decision.error.message, error: decision.error };
    case 'give-up':
      return { type: 'give-up', attempt, reason: decision.reason, error };
    case 'retry': {
      const { delay, source, classification } = decision;
      return { type: 'retry', attempt, delay, source, reason: classification.reason, error };
    }
  }
}

const field = readSafely;

/** The server's hint on a failure: gRPC pushback for gRPC errors, else Retry-After on the error or its response. */
export function serverHint(
  error: unknown,
  now: number,
):
  | { readonly kind: 'pushback'; readonly pushback: GrpcPushback }
  | { readonly kind: 'retry-after'; readonly delay: number }
  | undefined {
  if (grpcCodeOf(error) !== undefined) {
    const pushback = readGrpcPushback(field(error, 'metadata'));
    return pushback.kind === 'none' ? undefined : { kind: 'pushback', pushback };
  }
  for (const source of [error, field(error, 'response')]) {
    const delay = readRetryAfter(source, now);
    if (delay !== undefined) return { kind: 'retry-after', delay };
  }
  return undefined;
}

/**
 * Decides what follows a failed attempt, given its classification (from `policy.classify`). The
 * checks, in order: permanent failures are never retried; a failure that may have reached the server
 * is not retried for a non-idempotent operation; a server that pushes back with a negative or
 * unparseable value is not retried; then the attempt limit, the deadline and the budget; then the
 * wait. The wait is the next backoff step; a server hint (Retry-After or gRPC pushback) cut to
 * `maxRetryAfter` and spread by up to 20 % can lengthen it, never shorten it (after pushback the
 * backoff starts afresh, as gRFC A6 says); the floor on attempt starts applies last. A hint that ends
 * at or after the deadline gives up at once, and so does a wait that would.
 */
export function decideRetry(
  error: unknown,
  classification: Classification,
  state: RetryLoopState,
  policy: ResolvedRetryPolicy,
  env: DecisionEnv,
): RetryDecision {
  const left = state.deadline - env.now;
  const pre = precheckRetry(
    classification,
    {
      attempt: state.attempt,
      maxAttempts: policy.maxAttempts,
      idempotency: policy.idempotency,
      precondition: policy.precondition,
      subject: 'operation',
      left,
      budgetAllows: env.budgetAllows,
    },
    () => (policy.serverHints ? serverHint(error, env.now) : undefined),
  );
  if (pre.type !== 'go-on') return pre;
  const { hint } = pre;
  const giveUp = (reason: GiveUpReason, detail: string): RetryDecision => giveUpOn(pre.classification, reason, detail);

  const step = stepBackoff(policy.backoff, state.backoff, policy.random);
  if (!step.ok) return { type: 'policy-error', error: step.error };
  // Measured from the attempt's start: what the attempt took already counts towards the wait.
  let delay = Math.max(0, step.delay - Math.max(0, env.now - (state.startedAt ?? env.now)));
  let source: DelaySource = 'backoff';
  // After pushback the backoff starts afresh (gRFC A6); the step still bounds this wait from below.
  const backoff = hint?.kind === 'pushback' ? undefined : step.backoff;
  const bounded = boundHint(
    hint?.kind === 'retry-after' ? hint.delay : hint?.pushback.kind === 'wait' ? hint.pushback.delay : undefined,
    policy.maxRetryAfter,
  );
  if (bounded !== undefined) {
    const header = hint?.kind === 'pushback' ? 'grpc-retry-pushback-ms' : 'Retry-After';
    const { asked, delay: capped } = bounded;
    if (capped >= left) {
      return giveUp(
        'retry-after-beyond-deadline',
        `the server asked to wait ${formatDuration(capped)} (${header}${
          capped < asked ? `, cut to maxRetryAfter from ${formatDuration(asked)}` : ''
        }), beyond the ${formatDuration(left)} left before the deadline`,
      );
    }
    let hinted = hintedDelay(capped, delay, policy.maxRetryAfter, policy.random);
    // The spread must not turn a wait that fits before the deadline into a give-up.
    if (hinted >= left) hinted = Math.max(delay, capped);
    if (hinted > delay) {
      delay = hinted;
      source = hint?.kind === 'pushback' ? 'pushback' : 'retry-after';
    }
  }
  // The floor on attempt starts: no backoff or hint brings the next start closer than it allows.
  delay = clampDelay(Math.max(delay, earliestStart(state.credit ?? FULL_CREDIT, policy.attemptSpacing) - env.now));
  if (delay >= left) {
    return giveUp(
      'deadline',
      `the next wait (${formatDuration(delay)}) would end after the deadline, ${formatDuration(left)} away (${classification.reason})`,
    );
  }
  return { type: 'retry', delay, source, backoff, classification: pre.classification };
}
