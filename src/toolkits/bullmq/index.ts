/**
 * Queue-based backoff on BullMQ: a `backoffStrategy` from any redialer policy (capped, server hints as
 * a floor, permanent failures failed at once, idempotency rules, a retry budget, metrics), provider-wide
 * throttling through BullMQ's rate limiter, and a jittered ioredis reconnect schedule. Node only;
 * `bullmq` is an optional peer.
 * @module redialer/bullmq
 */
export {
  jobRetries,
  bullmqBackoff,
  REDIALER_BACKOFF_TYPE,
  type JobRetries,
  type JobRetriesOptions,
  type JobLike,
  type RedialerJobOptions,
} from './job-retries.js';
export {
  decideJobRetry,
  classifyJobError,
  nthBackoff,
  type JobRetryDecision,
  type JobRetryPolicy,
  type JobAttemptFacts,
} from './job-retry-decision.js';
export {
  throttleQueue,
  type QueueRateLimiter,
  type QueueThrottled,
  type ThrottleQueueOptions,
} from './throttle-queue.js';
export { ioredisRetryStrategy, type IoredisRetryStrategyOptions } from '../redis/ioredis-retry-strategy.js';
