/**
 * gRFC A6's retry throttling shared by a fleet through Redis: one token bucket for every process.
 * @module
 */
import { tokenBucketBudget, type TokenBucketBudget, type TokenBucketBudgetOptions } from '../retry/index.js';
import { TOKEN_BUCKET_SYNC } from './budget-scripts.js';
import {
  type SharedBudgetOptions,
  type SharedRetryBudget,
  pendingCounts,
  resolveSharedOptions,
  type SyncLink,
  startSync,
  withLink,
} from './shared-budget-sync.js';

/** Options of {@link sharedTokenBucketBudget}. */
export interface SharedTokenBucketBudgetOptions extends SharedBudgetOptions, TokenBucketBudgetOptions {}

/** A {@link sharedTokenBucketBudget}. */
export interface SharedTokenBucketBudget extends SharedRetryBudget {
  /** The fleet's tokens as of the last sync, with this process's changes since (the local bucket's while local). */
  readonly tokens: number;
  /** The local bucket that decides while Redis is unreachable (it sees every event all along). */
  readonly fallback: TokenBucketBudget;
}

/**
 * gRFC A6's token bucket shared by every process that uses the same `redis` and `key`, local-first:
 * `canRetry()` never waits on Redis. Each process may spend its share of the headroom above
 * `maxTokens / 2` as of the last sync — `(tokens − maxTokens/2) / processes`, less one token per
 * failure since, plus `tokenRatio` per success since — and syncs once per `syncInterval` with one Lua
 * call. While Redis is unreachable it decides from a local `tokenBucketBudget` (`mode` is `local`).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const budget = sharedTokenBucketBudget({ redis: new Redis(), key: 'budget:users-api', maxTokens: 100, tokenRatio: 0.1 });
 * ```
 */
export function sharedTokenBucketBudget(options: SharedTokenBucketBudgetOptions): SharedTokenBucketBudget {
  const shared = resolveSharedOptions('sharedTokenBucketBudget options', options);
  const { raw } = shared;
  // The local bucket validates maxTokens and tokenRatio exactly as the in-process budget does.
  const fallback = tokenBucketBudget({
    maxTokens: raw['maxTokens'] as number,
    tokenRatio: raw['tokenRatio'] as number,
  });
  const max = Math.round((raw['maxTokens'] as number) * 1000);
  const ratio = Math.floor((raw['tokenRatio'] as number) * 1000 + 1e-6);
  const idleTtl = Math.max(600_000, 10 * shared.syncInterval);
  const pending = pendingCounts(['failures', 'successes']);

  const link = startSync(shared, {
    script: TOKEN_BUCKET_SYNC,
    pending,
    args: (batch) => [batch.failures, batch.successes * ratio, max, 3 * shared.syncInterval, idleTtl],
    replyLength: 2,
    parse: ([tokens = 0, members = 0]) => ({ tokens, members }),
    initial: { tokens: max, members: 1 },
  });

  const estimate = (): number => {
    const { fleet } = link;
    const { local } = pending;
    return Math.min(max, Math.max(0, fleet.tokens - 1000 * local.failures + ratio * local.successes));
  };

  return withLink<Omit<SharedTokenBucketBudget, keyof SyncLink>>(link, {
    fallback,
    get tokens() {
      return link.mode === 'local' ? fallback.tokens : estimate() / 1000;
    },
    onAttempt(isRetry) {
      fallback.onAttempt(isRetry);
    },
    onSuccess() {
      fallback.onSuccess();
      pending.add('successes');
    },
    onTransientFailure() {
      fallback.onTransientFailure();
      pending.add('failures');
    },
    canRetry() {
      if (link.mode === 'local') return fallback.canRetry();
      const { fleet } = link;
      const { local } = pending;
      const headroom = (fleet.tokens - max / 2) / Math.max(1, fleet.members);
      return headroom - 1000 * local.failures + ratio * local.successes > 0;
    },
  });
}
