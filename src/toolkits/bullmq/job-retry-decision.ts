/**
 * The pure decision after a failed job attempt: fail it now, or retry it after how long. It follows
 * `redialer/retry` — the same classification, idempotency rules, server hints and budget verdict — with
 * two differences that suit a queue: the wait is never shorter than a server hint (a hint is a floor
 * under the backoff, not a replacement), and the schedule is computed from the attempt number alone,
 * because any worker of the fleet may handle the next failure.
 * @module
 */
import { type Backoff, type BackoffPolicy, type RandomSource, clampDelay } from '../../backoff/backoff.js';
import { type BackoffStep, stepBackoff } from '../../backoff/backoff-step.js';
import { boundHint, hintedDelay } from '../../backoff/server-hint.js';
import { isRetryAfterError, retryAfterDelayOf } from '../../errors/retry-after-error.js';
import { formatDuration } from '../../internal/format-duration.js';
import {
  type Classification,
  type Classifier,
  type DelaySource,
  type GiveUpReason,
  type Idempotency,
  transient,
} from '../retry/index.js';
import { type RetryDecision, serverHint } from '../retry/policy/retry-decision.js';
import { giveUpOn, precheckRetry } from '../retry/policy/retry-precheck.js';

/** The policy a job retry follows, validated. */
export interface JobRetryPolicy {
  /** The schedule: attempt n waits at least the n-th step of this policy. */
  readonly backoff: BackoffPolicy;
  /** The cap on the backoff's step (server hints may ask for more, up to `maxRetryAfter`). */
  readonly maxDelay: number;
  readonly classify: Classifier;
  readonly serverHints: boolean;
  /** The longest server hint honoured; longer hints are cut to it. */
  readonly maxRetryAfter: number;
  /** Ms from the job's creation after which it is not retried (Infinity for never). */
  readonly totalTimeout: number;
  readonly random: RandomSource;
}

/** What a decision needs to know about the job. */
export interface JobAttemptFacts {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  /** The job's `attempts` option (BullMQ's default is 1). */
  readonly maxAttempts: number;
  /** When the job was created (BullMQ's `job.timestamp`), epoch ms. */
  readonly createdAt: number;
  readonly idempotency: Idempotency;
  readonly precondition: boolean;
  /**
   * When the attempt that failed started (BullMQ's `job.processedOn`), epoch ms: the wait is measured
   * from it, as every backoff in redialer is, so a slow failure eats into its own wait. Without it,
   * from the failure.
   */
  readonly startedAt?: number | undefined;
}

/**
 * The outcome of {@link decideJobRetry}: a `RetryDecision` whose retry carries no backoff state (the
 * next attempt's wait is computed from its number alone).
 */
export type JobRetryDecision =
  | Exclude<RetryDecision, { readonly type: 'retry' }>
  | Omit<Extract<RetryDecision, { readonly type: 'retry' }>, 'backoff'>;

/** Backoff steps replayed at most; far beyond any useful attempt count, and bounded so a huge `attempts` stays cheap. */
const MAX_REPLAYED_STEPS = 10_000;

/** The n-th step (1-based) of `policy`, taken with `stepBackoff()`: a broken policy gives its error. */
function nthStep(policy: BackoffPolicy, n: number, random: RandomSource): BackoffStep {
  let step = stepBackoff(policy, undefined, random);
  for (let i = 1; step.ok && i < Math.min(n, MAX_REPLAYED_STEPS); i++) step = stepBackoff(policy, step.backoff, random);
  return step;
}

/**
 * The n-th step (1-based) of `policy`: the wait after the n-th consecutive failure. Throws the
 * {@link redialer!BackoffPolicyError} of a policy that throws or gives no finite delay.
 */
export function nthBackoff(policy: BackoffPolicy, n: number, random: RandomSource): Backoff {
  const step = nthStep(policy, n, random);
  if (!step.ok) throw step.error;
  return step.backoff;
}

/**
 * Classifies a job's failure. A core `RetryAfterError` (the server named a time to come back) is
 * transient whatever it wraps, and keeps its cause's `sent` verdict when the cause is transient.
 */
export function classifyJobError(error: unknown, classify: Classifier): Classification {
  if (!isRetryAfterError(error)) return classify(error);
  const inner = error.cause === undefined ? undefined : classify(error.cause);
  return transient(
    `the server asked to retry after ${formatDuration(error.delay)}`,
    inner?.kind === 'transient' ? inner.sent : 'maybe',
  );
}

function hintOf(error: unknown, now: number): ReturnType<typeof serverHint> {
  const delay = retryAfterDelayOf(error);
  if (delay !== undefined) return { kind: 'retry-after', delay };
  return serverHint(error, now);
}

/**
 * Decides what follows the failure of a job's attempt. In order: a permanent failure fails the job; a
 * failure that may have reached the server fails a job that is not idempotent; a gRPC pushback that
 * says "stop" fails it; then the attempt limit, the job's deadline and the budget. The wait is
 * `max(min(step n of the backoff, maxDelay), min(server hint, maxRetryAfter))`, and a wait that would
 * end after the deadline gives up at once.
 */
export function decideJobRetry(
  error: unknown,
  classification: Classification,
  job: JobAttemptFacts,
  policy: JobRetryPolicy,
  env: { readonly now: number; readonly budgetAllows: boolean },
): JobRetryDecision {
  const left = job.createdAt + policy.totalTimeout - env.now;
  const pre = precheckRetry(classification, { ...job, subject: 'job', left, budgetAllows: env.budgetAllows }, () =>
    policy.serverHints ? hintOf(error, env.now) : undefined,
  );
  if (pre.type !== 'go-on') return pre;
  const { hint } = pre;
  const giveUp = (reason: GiveUpReason, detail: string): JobRetryDecision =>
    giveUpOn(pre.classification, reason, detail);

  const step = nthStep(policy.backoff, job.attempt, policy.random);
  if (!step.ok) return { type: 'policy-error', error: step.error };
  // Measured from the attempt's start: what the attempt took already counts towards the wait.
  const took = job.startedAt === undefined ? 0 : Math.max(0, env.now - job.startedAt);
  const backoff = Math.max(0, Math.min(policy.maxDelay, step.delay) - took);
  const hintSource: DelaySource = hint?.kind === 'pushback' ? 'pushback' : 'retry-after';
  const bounded = boundHint(
    hint?.kind === 'retry-after' ? hint.delay : hint?.pushback.kind === 'wait' ? hint.pushback.delay : undefined,
    policy.maxRetryAfter,
  );
  // The one hint rule: a floor under the backoff, cut to maxRetryAfter, spread upwards.
  const hinted =
    bounded === undefined || bounded.delay === 0
      ? 0
      : hintedDelay(bounded.delay, backoff, policy.maxRetryAfter, policy.random);
  const delay = clampDelay(Math.max(backoff, hinted));
  const source = hinted > backoff ? hintSource : 'backoff';
  if (delay >= left) {
    if (source !== 'backoff') {
      const header = source === 'pushback' ? 'grpc-retry-pushback-ms' : 'Retry-After';
      return giveUp(
        'retry-after-beyond-deadline',
        `the server asked to wait ${formatDuration(delay)} (${header}), beyond the ${formatDuration(left)} left before the job's deadline`,
      );
    }
    return giveUp(
      'deadline',
      `the next wait (${formatDuration(delay)}) would end after the job's deadline, ${formatDuration(left)} away (${classification.reason})`,
    );
  }
  return { type: 'retry', delay, source, classification: pre.classification };
}
