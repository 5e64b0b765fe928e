/**
 * Queue-based backoff for BullMQ: a `backoffStrategy` built from any redialer policy, and a processor
 * wrapper that classifies each failure, charges a retry budget and reports metrics. The wait lives in
 * the queue (the job goes back delayed), not in the worker, so it survives a crash and frees the worker.
 * @module
 */
import {
  type BackoffStrategy,
  DelayedError,
  type MinimalJob,
  type Processor,
  RATE_LIMIT_ERROR,
  UnrecoverableError,
  WaitingChildrenError,
  WaitingError,
} from 'bullmq';
import type { BackoffPolicy, RandomSource } from '../../backoff/backoff.js';
import { grpcBackoff } from '../../backoff/grpc-backoff.js';
import {
  type Classifier,
  type Idempotency,
  type RetryBudget,
  type RetryEvent,
  type RetryEventSink,
  classify as defaultClassify,
} from '../retry/index.js';
import { IDEMPOTENCY_KINDS } from '../retry/classification/idempotency.js';
import { retryEventOf } from '../retry/policy/retry-decision.js';
import { type UnhandledErrorHandler, reportUnhandledError, runGuarded } from '../../internal/report-unhandled-error.js';
import {
  checkOptionsObject,
  describeValue,
  optionalBoolean,
  optionalFunction,
  optionalNumber,
} from '../../internal/validate.js';
import { type JobAttemptFacts, type JobRetryPolicy, classifyJobError, decideJobRetry } from './job-retry-decision.js';
import { type QueueRateLimiter, throttleQueue } from './throttle-queue.js';

/** The `backoff.type` that BullMQ hands to {@link JobRetries.backoffStrategy}. */
export const REDIALER_BACKOFF_TYPE = 'redialer';

/** The part of a BullMQ job the retry rules read; `T` is the job's data. */
export type JobLike<T = unknown> = Pick<MinimalJob<T>, 'id' | 'name' | 'data' | 'attemptsMade' | 'timestamp' | 'opts'> &
  Partial<Pick<MinimalJob<T>, 'processedOn'>>;

/** Options of {@link jobRetries} and {@link bullmqBackoff}; every time is in milliseconds. */
export interface JobRetriesOptions<T = unknown> {
  /** The schedule: the n-th retry waits the n-th step of this policy. @defaultValue `grpcBackoff()` */
  readonly backoff?: BackoffPolicy;
  /** The cap on a backoff step (BullMQ's own exponential backoff has none). @defaultValue 3600000 */
  readonly maxDelay?: number;
  /** Transient or permanent. @defaultValue `classify` from `redialer/retry` */
  readonly classify?: Classifier;
  /**
   * Whether a job may run again after a failure that may have reached the server: a value for every
   * job, or a function of the job (e.g. from `job.data`). @defaultValue 'idempotent'
   */
  readonly idempotency?: Idempotency | ((job: JobLike<T>) => Idempotency);
  /** Whether the job carries a precondition (makes a `conditional` job retryable). @defaultValue false */
  readonly precondition?: boolean | ((job: JobLike<T>) => boolean);
  /** Honour `Retry-After`, gRPC pushback and a core `RetryAfterError` as a floor under the wait. @defaultValue true */
  readonly serverHints?: boolean;
  /** The longest server hint honoured; longer ones are cut to it. @defaultValue 3600000 */
  readonly maxRetryAfter?: number;
  /** Time from the job's creation after which it is not retried. @defaultValue Infinity */
  readonly totalTimeout?: number;
  /** A retry budget, shared by every worker that is given the same object (see `redialer/redis`). @defaultValue none */
  readonly budget?: RetryBudget;
  /** Receives attempts, successes, retries, give-ups and permanent failures (a `RetryMetrics`). @defaultValue none */
  readonly metrics?: RetryEventSink;
  /**
   * With a queue: a `429` (or another status in `throttleStatuses`) carrying `Retry-After` pauses the
   * whole queue through BullMQ's rate limiting instead of spending the job's attempts (see
   * {@link throttleQueue}). @defaultValue none
   */
  readonly throttle?: QueueRateLimiter;
  /** The statuses that pause the queue when `throttle` is given. @defaultValue [429] */
  readonly throttleStatuses?: readonly number[];
  /** The random source for the backoff's jitter, returning numbers in [0, 1]. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /** The clock BullMQ schedules delayed jobs on, epoch ms. @defaultValue `Date.now` */
  readonly now?: () => number;
  /**
   * Receives what no caller can: a metrics sink that throws, a queue pause (`throttle`) that Redis
   * refused (the job is then decided like any other failure).
   * @defaultValue RxJS's `config.onUnhandledError` if set, else rethrown asynchronously
   */
  readonly onUnhandledError?: UnhandledErrorHandler;
}

/** Job options that turn the redialer strategy on: `{ attempts, backoff: { type: 'redialer' } }`. */
export interface RedialerJobOptions {
  readonly attempts: number;
  readonly backoff: { readonly type: typeof REDIALER_BACKOFF_TYPE };
}

/** What {@link jobRetries} returns: the pieces to give a BullMQ Worker and its jobs. */
export interface JobRetries {
  /** For `new Worker(name, processor, { settings: { backoffStrategy } })`. */
  readonly backoffStrategy: BackoffStrategy;
  /**
   * Wraps a processor: counts each attempt on the budget and the metrics, classifies each failure and
   * decides it. A retry is charged to the budget when it is decided, a first attempt when it starts. A failure that must not be retried fails the job at once (the strategy answers −1, or
   * an `UnrecoverableError` when the job does not use the redialer strategy); a retry goes back to
   * the queue delayed by the strategy.
   */
  process<T, R, N extends string>(processor: Processor<T, R, N>): Processor<T, R, N>;
  /** Job options for `queue.add(name, data, retries.jobOptions(5))`: `attempts` in all, the first included. */
  jobOptions(attempts: number): RedialerJobOptions;
}

function optionalChoiceOrFunction<T>(
  name: string,
  value: unknown,
  valid: (v: unknown) => v is T,
  fallback: T,
): T | ((job: JobLike) => T) {
  if (value === undefined) return fallback;
  if (typeof value === 'function') return value as (job: JobLike) => T;
  if (valid(value)) return value;
  throw new TypeError(
    `redialer: option "${name}" must be ${name === 'idempotency' ? `one of ${IDEMPOTENCY_KINDS.map((k) => JSON.stringify(k)).join(', ')}` : 'a boolean'} or a function of the job, got ${describeValue(value)}`,
  );
}

const isIdempotency = (v: unknown): v is Idempotency =>
  typeof v === 'string' && (IDEMPOTENCY_KINDS as readonly string[]).includes(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

function checkPort(name: string, value: unknown, methods: readonly string[]): object | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'object' ||
    value === null ||
    !methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  ) {
    throw new TypeError(
      `redialer: option "${name}" must be an object with ${methods.map((m) => `${m}()`).join(', ')}, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** BullMQ's own control-flow errors: the job is moved, not failed, and no retry rule applies. */
function isControlError(error: unknown): boolean {
  if (error instanceof DelayedError || error instanceof WaitingError || error instanceof WaitingChildrenError)
    return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'DelayedError' || name === 'WaitingError' || name === 'WaitingChildrenError';
}

function isRateLimitError(error: unknown): boolean {
  return (error as { message?: unknown } | null)?.message === RATE_LIMIT_ERROR;
}

function isUnrecoverable(error: unknown): boolean {
  return error instanceof UnrecoverableError || (error as { name?: unknown } | null)?.name === 'UnrecoverableError';
}

/**
 * Retry rules for BullMQ jobs from any redialer backoff policy, with a cap, server hints as a floor,
 * permanent failures failed at once, `redialer/retry`'s idempotency rules, a retry budget and metrics.
 * BullMQ only consults a strategy for jobs whose options name it, so add jobs with
 * {@link JobRetries.jobOptions} (or `backoff: { type: 'redialer' }` and `attempts` > 1).
 *
 * @example
 * ```ts
 * const retries = jobRetries({ backoff: grpcBackoff({ initialBackoff: 2000 }), maxDelay: 600_000, budget, metrics });
 * const worker = new Worker('mail', retries.process(sendMail), { connection, settings: { backoffStrategy: retries.backoffStrategy } });
 * await queue.add('welcome', { to }, retries.jobOptions(8));
 * ```
 */
export function jobRetries<T = unknown>(options: JobRetriesOptions<T> = {}): JobRetries {
  const raw = checkOptionsObject('jobRetries options', options);
  const policy: JobRetryPolicy = {
    backoff: (checkPort('backoff', raw['backoff'], ['first']) as BackoffPolicy | undefined) ?? grpcBackoff(),
    maxDelay: optionalNumber('maxDelay', raw['maxDelay'], 3_600_000, { min: 0, allowInfinity: true }),
    classify: optionalFunction<Classifier>('classify', raw['classify'], defaultClassify),
    serverHints: optionalBoolean('serverHints', raw['serverHints'], true),
    maxRetryAfter: optionalNumber('maxRetryAfter', raw['maxRetryAfter'], 3_600_000, { min: 0, allowInfinity: true }),
    totalTimeout: optionalNumber('totalTimeout', raw['totalTimeout'], Infinity, { min: 0, allowInfinity: true }),
    random: optionalFunction('random', raw['random'], Math.random),
  };
  const idempotency = optionalChoiceOrFunction('idempotency', raw['idempotency'], isIdempotency, 'idempotent');
  const precondition = optionalChoiceOrFunction('precondition', raw['precondition'], isBoolean, false);
  const budget = checkPort('budget', raw['budget'], ['onAttempt', 'onSuccess', 'onTransientFailure', 'canRetry']) as
    RetryBudget | undefined;
  const metrics = checkPort('metrics', raw['metrics'], ['record']) as RetryEventSink | undefined;
  const throttle = checkPort('throttle', raw['throttle'], ['rateLimit']) as QueueRateLimiter | undefined;
  const throttleStatuses = raw['throttleStatuses'] ?? [429];
  if (!Array.isArray(throttleStatuses) || !throttleStatuses.every((s) => Number.isInteger(s))) {
    throw new TypeError(
      `redialer: option "throttleStatuses" must be an array of HTTP statuses, got ${describeValue(throttleStatuses)}`,
    );
  }
  const now = optionalFunction('now', raw['now'], Date.now);
  const onUnhandledError = optionalFunction<UnhandledErrorHandler>('onUnhandledError', raw['onUnhandledError']);
  const emit = (sink: RetryEventSink | undefined, event: RetryEvent): void => {
    if (sink !== undefined)
      runGuarded(() => {
        sink.record(event);
      }, onUnhandledError);
  };
  // The processor wrapper decides; the strategy, called by BullMQ right after with the same error, reads it.
  const decided = new WeakMap<object, number>();

  const facts = (job: JobLike | undefined, attempt: number, startedAt?: number): JobAttemptFacts => ({
    attempt,
    maxAttempts: job?.opts.attempts ?? 1,
    createdAt: job?.timestamp ?? now(),
    // The processor wrapper knows when the attempt really began; BullMQ's processedOn is when a
    // worker took the job, which may be earlier.
    startedAt: startedAt ?? job?.processedOn,
    idempotency: job === undefined ? 'idempotent' : typeof idempotency === 'function' ? idempotency(job) : idempotency,
    precondition: job === undefined ? false : typeof precondition === 'function' ? precondition(job) : precondition,
  });

  const usesStrategy = (job: JobLike): boolean => {
    const backoff = job.opts.backoff;
    return typeof backoff === 'object' && backoff.type === REDIALER_BACKOFF_TYPE;
  };

  const backoffStrategy: BackoffStrategy = (attemptsMade, _type, err, job) => {
    if (typeof err === 'object') {
      const delay = decided.get(err);
      if (delay !== undefined) {
        decided.delete(err);
        return delay;
      }
    }
    // Used without the wrapper: decide from the error alone (no budget accounting).
    const decision = decideJobRetry(err, classifyJobError(err, policy.classify), facts(job, attemptsMade), policy, {
      now: now(),
      budgetAllows: budget?.canRetry() ?? true,
    });
    return decision.type === 'retry' ? decision.delay : -1;
  };

  /** Makes BullMQ fail the job now, keeping the original error where the strategy can say −1. */
  const failNow = (error: unknown, job: JobLike): unknown => {
    const attemptsLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    if (!attemptsLeft) return error;
    if (typeof error === 'object' && error !== null && usesStrategy(job)) {
      decided.set(error, -1);
      return error;
    }
    const wrapped = new UnrecoverableError(error instanceof Error ? error.message : String(error));
    Object.defineProperty(wrapped, 'cause', { value: error, configurable: true, writable: true });
    return wrapped;
  };

  const onFailure = async (error: unknown, job: JobLike, attempt: number, startedAt: number): Promise<unknown> => {
    if (isUnrecoverable(error)) {
      emit(metrics, { type: 'permanent', attempt, reason: 'UnrecoverableError', error });
      return error;
    }
    const classification = classifyJobError(error, policy.classify);
    if (classification.kind === 'transient') {
      budget?.onTransientFailure();
      if (throttle !== undefined) {
        // If the pause itself fails (Redis went away), the job is decided as any other failure.
        const limited = await throttleQueue(throttle, error, {
          statuses: throttleStatuses as number[],
          maxDelay: policy.maxRetryAfter,
          now,
        }).catch((pauseError: unknown) => {
          reportUnhandledError(pauseError, onUnhandledError);
          return undefined;
        });
        if (limited !== undefined) {
          emit(metrics, {
            type: 'retry',
            attempt,
            delay: limited.delay,
            source: 'retry-after',
            reason: classification.reason,
            error,
          });
          return limited.error;
        }
      }
    }
    const decision = decideJobRetry(error, classification, facts(job, attempt, startedAt), policy, {
      now: now(),
      budgetAllows: budget?.canRetry() ?? true,
    });
    emit(metrics, retryEventOf(decision, attempt, error));
    switch (decision.type) {
      case 'policy-error':
        // A broken backoff policy is not retried on: the job fails with the policy's error.
        return failNow(decision.error, job);
      case 'permanent':
      case 'give-up':
        return failNow(error, job);
      case 'retry':
        if (typeof error === 'object' && error !== null) decided.set(error, decision.delay);
        // Charged now, not when the delayed job runs: otherwise every failure in the meantime would
        // see the same allowance, and a busy worker would overspend the budget.
        budget?.onAttempt(true);
        return error;
    }
  };

  return {
    backoffStrategy,
    process<T, R, N extends string>(processor: Processor<T, R, N>): Processor<T, R, N> {
      if (typeof processor !== 'function')
        throw new TypeError(`redialer: the processor must be a function, got ${describeValue(processor)}`);
      return async (job, token, signal) => {
        // attemptsMade counts failed attempts; rate-limited and delayed runs do not count (BullMQ).
        const attempt = job.attemptsMade + 1;
        // A retry was charged when it was decided (the queue committed to it then); a first attempt now.
        if (attempt === 1) budget?.onAttempt(false);
        emit(metrics, { type: 'attempt', attempt });
        let value: R;
        const startedAt = now();
        try {
          value = await processor(job, token, signal);
        } catch (error) {
          if (isControlError(error)) throw error;
          if (isRateLimitError(error)) {
            budget?.onTransientFailure();
            throw error;
          }
          throw await onFailure(error, job, attempt, startedAt);
        }
        budget?.onSuccess();
        emit(metrics, { type: 'success', attempt });
        return value;
      };
    },
    jobOptions(attempts: number): RedialerJobOptions {
      const n = optionalNumber('attempts', attempts, 1, { min: 1, integer: true });
      return { attempts: n, backoff: { type: REDIALER_BACKOFF_TYPE } };
    },
  };
}

/**
 * Only the BullMQ `backoffStrategy` of {@link jobRetries}: the schedule, the cap, server hints as a
 * floor, and −1 (fail now) for permanent failures, non-idempotent jobs and a refusing budget. Without
 * the processor wrapper nothing is counted on the budget or the metrics.
 *
 * @example
 * ```ts
 * new Worker('mail', sendMail, { connection, settings: { backoffStrategy: bullmqBackoff({ maxDelay: 600_000 }) } });
 * await queue.add('welcome', { to }, { attempts: 8, backoff: { type: 'redialer' } });
 * ```
 */
export function bullmqBackoff<T = unknown>(options: JobRetriesOptions<T> = {}): BackoffStrategy {
  return jobRetries(options).backoffStrategy;
}
