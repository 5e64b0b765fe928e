/**
 * The options every retry loop shares (the `retry()` function and the `retryBackoff()` operator),
 * their defaults and their validation.
 * @module
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { type AttemptSpacing, resolveAttemptSpacing } from '../../../backoff/attempt-spacing.js';
import type { BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { exponentialBackoff } from '../../../backoff/exponential-backoff.js';
import {
  checkOptionsObject,
  optionalBoolean,
  optionalChoice,
  optionalFunction,
  optionalNumber,
  optionalPort,
} from '../../../internal/validate.js';
import { type Classifier, classify as defaultClassify } from '../classification/classify.js';
import { IDEMPOTENCY_KINDS, type Idempotency } from '../classification/idempotency.js';
import type { UnhandledErrorHandler } from '../../../internal/report-unhandled-error.js';
import type { RetryBudget } from '../budgets/retry-budget.js';
import type { RetryEventSink } from '../core/retry-event.js';

/** Options shared by every retry loop; every time is in milliseconds. */
export interface RetryPolicyOptions {
  /** The most attempts, the first included (>= 1; Infinity for no limit). @defaultValue 3 */
  readonly maxAttempts?: number;
  /** The total time allowed, from the start of the first attempt (Infinity for none). @defaultValue Infinity */
  readonly totalTimeout?: number;
  /**
   * The wait after each transient failure, measured from the start of the attempt that failed (a slow
   * failure eats into it). A server hint, counted from the failure, can lengthen it, never shorten it.
   * @defaultValue `exponentialBackoff()` (1 s, ×2, 30 s cap, full jitter)
   */
  readonly backoff?: BackoffPolicy;
  /** Decides transient or permanent. @defaultValue {@link classify} */
  readonly classify?: Classifier;
  /** Whether the operation may be repeated after a failure that may have reached the server. @defaultValue 'idempotent' */
  readonly idempotency?: Idempotency;
  /** Whether the operation carries a precondition (If-Match…); makes a `conditional` one retryable. @defaultValue false */
  readonly precondition?: boolean;
  /** Whether to honour `Retry-After` and gRPC pushback found on a failure. @defaultValue true */
  readonly serverHints?: boolean;
  /**
   * The longest server hint honoured — `Retry-After` and gRPC pushback alike; longer hints are cut to
   * it (a hint that still ends after the deadline gives up at once). @defaultValue 60000
   */
  readonly maxRetryAfter?: number;
  /** A retry budget, shared with other calls. @defaultValue none */
  readonly budget?: RetryBudget;
  /** Receives every event, e.g. a {@link RetryMetrics}. @defaultValue none */
  readonly metrics?: RetryEventSink;
  /** The clock and timers; its `now()` is also the wall clock for Retry-After dates. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
  /** The random source for jitter, returning numbers in [0, 1]. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /**
   * The floor on the spacing of attempt starts, which no backoff or server hint undercuts: `burst`
   * attempts back to back, then one per `interval` ms. `{ interval: 0 }` turns it off.
   * @defaultValue `{ burst: 5, interval: 100 }` — at most 105 attempts in any 10 s window
   */
  readonly attemptSpacing?: Partial<AttemptSpacing>;
  /**
   * Receives errors thrown by a `metrics` sink, which no caller can receive.
   * @defaultValue RxJS's `config.onUnhandledError` if set, else rethrown asynchronously
   */
  readonly onUnhandledError?: UnhandledErrorHandler;
}

/** {@link RetryPolicyOptions} after validation. */
export interface ResolvedRetryPolicy {
  readonly maxAttempts: number;
  readonly totalTimeout: number;
  readonly backoff: BackoffPolicy;
  readonly classify: Classifier;
  readonly idempotency: Idempotency;
  readonly precondition: boolean;
  readonly serverHints: boolean;
  readonly maxRetryAfter: number;
  readonly budget: RetryBudget | undefined;
  readonly metrics: RetryEventSink | undefined;
  readonly scheduler: SchedulerLike;
  readonly random: RandomSource;
  readonly attemptSpacing: AttemptSpacing;
  readonly onUnhandledError: UnhandledErrorHandler | undefined;
}

/** The functions a `budget` option must have. */
const BUDGET_METHODS = ['onAttempt', 'onSuccess', 'onTransientFailure', 'canRetry'] as const;

/** Validates `options` and fills in the defaults; every bad option throws naming itself and the value. */
export function resolveRetryPolicy(options: RetryPolicyOptions, what = 'retry options'): ResolvedRetryPolicy {
  const raw = checkOptionsObject(what, options);
  return {
    maxAttempts: optionalNumber('maxAttempts', raw['maxAttempts'], 3, { min: 1, integer: true, allowInfinity: true }),
    totalTimeout: optionalNumber('totalTimeout', raw['totalTimeout'], Infinity, { min: 0, allowInfinity: true }),
    backoff: optionalPort<BackoffPolicy>('backoff', raw['backoff'], ['first']) ?? exponentialBackoff(),
    classify: optionalFunction<Classifier>('classify', raw['classify'], defaultClassify),
    idempotency: optionalChoice('idempotency', raw['idempotency'], IDEMPOTENCY_KINDS, 'idempotent'),
    precondition: optionalBoolean('precondition', raw['precondition'], false),
    serverHints: optionalBoolean('serverHints', raw['serverHints'], true),
    maxRetryAfter: optionalNumber('maxRetryAfter', raw['maxRetryAfter'], 60_000, { min: 0, allowInfinity: true }),
    budget: optionalPort<RetryBudget>('budget', raw['budget'], BUDGET_METHODS),
    metrics: optionalPort<RetryEventSink>('metrics', raw['metrics'], ['record']),
    scheduler: optionalPort<SchedulerLike>('scheduler', raw['scheduler'], ['now', 'schedule'], asyncScheduler),
    random: optionalFunction('random', raw['random'], Math.random),
    attemptSpacing: resolveAttemptSpacing('attemptSpacing', raw['attemptSpacing']),
    onUnhandledError: optionalFunction('onUnhandledError', raw['onUnhandledError']),
  };
}
