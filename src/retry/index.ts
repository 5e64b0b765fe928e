/**
 * Retrying operations safely: transient/permanent classification, server hints (Retry-After, gRPC
 * pushback), idempotency, deadlines, retry budgets, an RxJS operator, an RFC 6298 timeout estimator
 * and metrics. Runs in browsers and Node.
 * @module redialer/retry
 */
export { retry, type RetryOptions, type RetryAttemptContext, type AdaptiveTimeout } from './retry.js';
export { resolveRetryPolicy, type RetryPolicyOptions, type ResolvedRetryPolicy } from './retry-options.js';
export { decideRetry, serverHint, type RetryDecision, type RetryLoopState, type DecisionEnv } from './retry-decision.js';
export { RetryError, isRetryError, type GiveUpReason } from './retry-error.js';
export { AttemptTimeoutError, isAttemptTimeoutError } from './attempt-timeout-error.js';
export { markRetriesExhausted, isRetriesExhausted } from './retries-exhausted.js';
export { HttpResponseError, isHttpResponseError, type ResponseLike } from './http-response-error.js';
export {
  classify,
  createClassifier,
  transient,
  permanentFailure,
  httpStatusOf,
  grpcCodeOf,
  DEFAULT_RETRYABLE_HTTP_STATUSES,
  DEFAULT_RETRYABLE_GRPC_CODES,
  TRANSIENT_NETWORK_CODES,
  type Classification,
  type Classifier,
  type ClassifierRule,
  type ClassifierOptions,
  type SentVerdict,
} from './classify.js';
export { GrpcStatus, grpcStatusName, toGrpcStatusCode, type GrpcStatusCode, type GrpcStatusName } from './grpc-status.js';
export { parseRetryAfter, readRetryAfter, parseHttpDate } from './retry-after.js';
export { readHeader, type HeaderSource } from './header-lookup.js';
export { parseGrpcPushback, readGrpcPushback, GRPC_PUSHBACK_KEY, type GrpcPushback } from './grpc-pushback.js';
export {
  maySendAgain,
  hasPrecondition,
  idempotencyOfMethod,
  IDEMPOTENCY_KINDS,
  PRECONDITION_HEADERS,
  type Idempotency,
} from './idempotency.js';
export {
  tokenBucketBudget,
  ratioBudget,
  type RetryBudget,
  type TokenBucketBudget,
  type TokenBucketBudgetOptions,
  type RatioBudget,
  type RatioBudgetOptions,
} from './retry-budget.js';
export {
  grpcRetryPolicy,
  grpcRetryBackoff,
  GRPC_MAX_ATTEMPTS_LIMIT,
  type GrpcRetryPolicyOptions,
  type GrpcRetryBackoffOptions,
} from './grpc-retry-policy.js';
export type { RetryEvent, RetryEventSink, DelaySource } from './retry-event.js';
export {
  rtoEstimator,
  RtoEstimator,
  RtoTracker,
  RFC6298,
  type RtoEstimatorOptions,
  type RttSampleOptions,
} from './rto-estimator.js';
export { retryBackoff, type RetryBackoffOptions } from './retry-backoff.js';
export {
  RetryMetrics,
  type RetryMetricsOptions,
  type RetryMetricsSnapshot,
  type RetryCounts,
  type RetryRatioCrossing,
} from './retry-metrics.js';
export type {
  MeterLike,
  CounterLike,
  ObservableGaugeLike,
  ObservableResultLike,
  InstrumentOptionsLike,
  MetricAttributes,
} from './meter-like.js';
export { recordConnectionAttempts, connectionEvents } from './connection-attempt-metrics.js';
export { budgetedConnector, RetryThrottledError, isRetryThrottledError } from './budgeted-connector.js';
