/**
 * Retrying operations safely: transient/permanent classification, server hints (Retry-After, gRPC
 * pushback), idempotency, deadlines, retry budgets, an RxJS operator, an RFC 6298 timeout estimator
 * and metrics. Runs in browsers and Node.
 *
 * The source is grouped by concern: `core/` (the `retry` loop, the `retryBackoff` operator, events and
 * errors), `policy/` (options, the per-failure decision, gRPC's retry policy), `classification/`
 * (transient or permanent, idempotency), `hints/` (Retry-After, gRPC pushback), `budgets/`,
 * `metrics/` and `timeouts/`. What an application calls is exported from this one entry point; the
 * building blocks behind it (option resolution, header lookup, the status and idempotency tables,
 * the RFC 6298 constants) stay internal.
 * @module redialer/retry
 */
export { retry, type RetryOptions, type RetryAttemptContext, type AdaptiveTimeout } from './core/retry.js';
export type { RetryPolicyOptions, ResolvedRetryPolicy } from './policy/retry-options.js';
export { decideRetry, type RetryDecision, type RetryLoopState, type DecisionEnv } from './policy/retry-decision.js';
export { RetryError, isRetryError, type GiveUpReason } from './core/retry-error.js';
export { AttemptTimeoutError, isAttemptTimeoutError } from './timeouts/attempt-timeout-error.js';
export { DeadlineExceededError, isDeadlineExceededError } from './timeouts/deadline-exceeded-error.js';
export { markRetriesExhausted, isRetriesExhausted } from './core/retries-exhausted.js';
export { HttpResponseError, isHttpResponseError, type ResponseLike } from './classification/http-response-error.js';
export {
  classify,
  createClassifier,
  transient,
  permanentFailure,
  httpStatusOf,
  grpcCodeOf,
  DEFAULT_RETRYABLE_HTTP_STATUSES,
  DEFAULT_RETRYABLE_GRPC_CODES,
  type Classification,
  type Classifier,
  type ClassifierRule,
  type ClassifierOptions,
  type SentVerdict,
} from './classification/classify.js';
export { GrpcStatus, grpcStatusName, type GrpcStatusCode, type GrpcStatusName } from './classification/grpc-status.js';
export { parseRetryAfter, readRetryAfter } from './hints/retry-after.js';
export type { HeaderSource } from './hints/header-lookup.js';
export { parseGrpcPushback, readGrpcPushback, GRPC_PUSHBACK_KEY, type GrpcPushback } from './hints/grpc-pushback.js';
export { maySendAgain, hasPrecondition, idempotencyOfMethod, type Idempotency } from './classification/idempotency.js';
export {
  tokenBucketBudget,
  ratioBudget,
  type RetryBudget,
  type TokenBucketBudget,
  type TokenBucketBudgetOptions,
  type RatioBudget,
  type RatioBudgetOptions,
} from './budgets/retry-budget.js';
export {
  grpcRetryPolicy,
  grpcRetryBackoff,
  type GrpcRetryPolicyOptions,
  type GrpcRetryBackoffOptions,
} from './policy/grpc-retry-policy.js';
export type { RetryEvent, RetryEventSink, DelaySource } from './core/retry-event.js';
export {
  rtoEstimator,
  type RtoEstimator,
  RtoTracker,
  type RtoEstimatorOptions,
  type RttSampleOptions,
} from './timeouts/rto-estimator.js';
export { retryBackoff, type RetryBackoffOptions } from './core/retry-backoff.js';
export {
  RetryMetrics,
  type RetryMetricsOptions,
  type RetryMetricsSnapshot,
  type RetryCounts,
  type RetryRatioCrossing,
} from './metrics/retry-metrics.js';
export type {
  MeterLike,
  CounterLike,
  ObservableGaugeLike,
  ObservableResultLike,
  InstrumentOptionsLike,
  MetricAttributes,
} from './metrics/meter-like.js';
export { recordConnectionAttempts } from './metrics/connection-attempt-metrics.js';
export { budgetedConnector, RetryThrottledError, isRetryThrottledError } from './budgets/budgeted-connector.js';
export {
  circuitBreaker,
  BREAKER_DEFAULTS,
  type CircuitBreaker,
  type CircuitBreakerOptions,
  type BreakerTraceEntry,
  type BreakerSnapshot,
  type BreakerPermit,
  type BreakerCallContext,
} from './breaker/circuit-breaker.js';
export { BrokenCircuitError, isBrokenCircuitError } from './breaker/broken-circuit-error.js';
export { memoryBreakerStore, type BreakerStateStore, type SharedBreakerState } from './breaker/breaker-state-store.js';
export {
  failover,
  type FailoverFunction,
  type FailoverProvider,
  type FailoverOptions,
  type FailoverCallOptions,
  type FailoverAttemptContext,
  type ProviderSnapshot,
} from './failover/failover.js';
export {
  FailoverError,
  isFailoverError,
  type ProviderOutcome,
  type FailoverGiveUp,
  type FailoverErrorOptions,
} from './failover/failover-error.js';
