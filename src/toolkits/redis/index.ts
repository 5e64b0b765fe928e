/**
 * Retry budgets shared by every process of a fleet through Redis (local-first: no decision waits on
 * Redis), and a jittered reconnect schedule for ioredis. Node only; `ioredis` is an optional peer,
 * typed structurally and never imported.
 * @module redialer/redis
 */
export { sharedRatioBudget, type SharedRatioBudget, type SharedRatioBudgetOptions } from './shared-ratio-budget.js';
export {
  sharedTokenBucketBudget,
  type SharedTokenBucketBudget,
  type SharedTokenBucketBudgetOptions,
} from './shared-token-bucket.js';
export type {
  SharedRetryBudget,
  SharedBudgetOptions,
  SharedBudgetMode,
  SharedBudgetStatus,
} from './shared-budget-sync.js';
export { ioredisRetryStrategy, type IoredisRetryStrategyOptions } from './ioredis-retry-strategy.js';
export type { RedisClientLike } from './redis-client-like.js';
