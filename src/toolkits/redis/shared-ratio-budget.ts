/**
 * The ratio budget (Google SRE, Finagle) shared by a fleet through Redis: retries may be at most
 * `ratio` of the fleet's attempts over the window, plus `minRetries` per window for the whole fleet.
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { ratioBudget, type RatioBudget, type RatioBudgetOptions } from '../retry/index.js';
import { optionalNumber } from '../../internal/validate.js';
import { RATIO_SYNC } from './budget-scripts.js';
import {
  type SharedBudgetOptions,
  type SharedRetryBudget,
  pendingCounts,
  resolveSharedOptions,
  type SyncLink,
  startSync,
  withLink,
} from './shared-budget-sync.js';

/** Options of {@link sharedRatioBudget}. */
export interface SharedRatioBudgetOptions extends SharedBudgetOptions, Omit<RatioBudgetOptions, 'scheduler'> {
  /** The slices of the window kept in Redis (the window slides by one slice). @defaultValue 10 */
  readonly buckets?: number;
}

/** A {@link sharedRatioBudget}: `retryRatio` is the fleet's, as of the last sync plus this process's since. */
export interface SharedRatioBudget extends SharedRetryBudget {
  /** Retries / attempts over the window, for the fleet while shared, for this process while local. */
  readonly retryRatio: number;
  /** The local budget that decides while Redis is unreachable (it sees every event all along). */
  readonly fallback: RatioBudget;
}

/**
 * A ratio retry budget shared by every process that uses the same `redis` and `key`, local-first:
 * `canRetry()` never waits on Redis. Each process decides from the fleet's counts as of its last sync
 * — its share of the fleet's remaining allowance, `(max(minRetries, ratio × attempts) − retries) /
 * processes`, plus `ratio` per attempt it made since (so the fleet never exceeds `max(minRetries, ratio × attempts)`) — and syncs once per `syncInterval` with one Lua
 * call that adds its counts and returns the fleet's. While Redis is unreachable it decides from a
 * local `ratioBudget` with the same options (`mode` is then `local`).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const budget = sharedRatioBudget({ redis: new Redis(), key: 'budget:payments-api', ratio: 0.1 });
 * await retry(op, { budget });
 * ```
 */
export function sharedRatioBudget(options: SharedRatioBudgetOptions): SharedRatioBudget {
  const shared = resolveSharedOptions('sharedRatioBudget options', options);
  const { raw } = shared;
  const ratio = optionalNumber('ratio', raw['ratio'], 0.1, { min: 0, max: 1 });
  const window = optionalNumber('window', raw['window'], 10_000, { min: 1, max: MAX_DELAY_MS });
  const minRetries = optionalNumber('minRetries', raw['minRetries'], 10, { min: 0, integer: true });
  const buckets = optionalNumber('buckets', raw['buckets'], 10, { min: 1, max: 1000, integer: true });
  const fallback = ratioBudget({ ratio, window, minRetries, scheduler: shared.scheduler });
  // This process's counts that the fleet's, as of the last sync (`link.fleet`), do not include yet.
  const pending = pendingCounts(['attempts', 'retries']);

  const link = startSync(shared, {
    script: RATIO_SYNC,
    pending,
    args: (batch) => [batch.attempts, batch.retries, window, buckets, 3 * shared.syncInterval],
    replyLength: 3,
    parse: ([attempts = 0, retries = 0, members = 0]) => ({ attempts, retries, members }),
    initial: { attempts: 0, retries: 0, members: 1 },
  });

  return withLink<Omit<SharedRatioBudget, keyof SyncLink>>(link, {
    fallback,
    get retryRatio() {
      if (link.mode === 'local') return fallback.retryRatio;
      const { fleet } = link;
      const { local } = pending;
      const attempts = fleet.attempts + local.attempts;
      return attempts === 0 ? 0 : (fleet.retries + local.retries) / attempts;
    },
    onAttempt(isRetry) {
      fallback.onAttempt(isRetry);
      pending.add('attempts');
      if (isRetry) pending.add('retries');
    },
    onSuccess() {
      // The ratio counts attempts, not outcomes.
    },
    onTransientFailure() {
      // The ratio counts attempts, not outcomes.
    },
    canRetry() {
      if (link.mode === 'local') return fallback.canRetry();
      const { fleet } = link;
      const { local } = pending;
      const allowance = Math.max(0, Math.max(minRetries, ratio * fleet.attempts) - fleet.retries);
      const share = allowance / Math.max(1, fleet.members);
      return local.retries + 1 <= share + ratio * local.attempts;
    },
  });
}
