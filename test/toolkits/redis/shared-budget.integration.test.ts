/**
 * Shared budgets against a real redis-server, in this process: two budgets on two clients with two
 * ids stand for two processes. Local-first: decisions never wait; the mode says when Redis is gone.
 */
import { Redis } from 'ioredis';
import { defer, firstValueFrom, throwError } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager, constantBackoff } from '../../../src/index.js';
import {
  sharedRatioBudget,
  sharedTokenBucketBudget,
  type SharedRetryBudget,
} from '../../../src/toolkits/redis/index.js';
import {
  HttpResponseError,
  budgetedConnector,
  isRetryThrottledError,
  retry,
  retryBackoff,
  type RetryError,
} from '../../../src/toolkits/retry/index.js';
import { createFakeConnector } from '../../../src/testing/index.js';
import { type RedisServer, skipWithoutRedis, startRedisServer } from '../../support/redis-server.js';
import { until } from '../bullmq/support.js';

const skip = skipWithoutRedis('the shared budget tests');

describe.skipIf(skip)('shared retry budgets on a real redis-server', () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  const budgets: SharedRetryBudget[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(() => {
    for (const b of budgets.splice(0)) b.close();
    for (const c of clients.splice(0)) c.disconnect();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  const client = () => {
    const c = new Redis({ path: redis.socket, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    c.on('error', () => {
      // Expected while the server is stopped; the budget's mode reports it.
    });
    clients.push(c);
    return c;
  };
  const track = <B extends SharedRetryBudget>(b: B): B => {
    budgets.push(b);
    return b;
  };
  // Syncs by hand until the budget is shared: the first background sync runs at once, before the client is
  // ready, and the next one comes an interval later.
  const shared = (b: SharedRetryBudget) =>
    until(async () => {
      await b.sync();
      return b.mode === 'shared';
    }, 'the budget to sync');
  // A member counts for three sync intervals after its last sync. The fleet tests sync by hand, so their
  // interval only sets that window: 5 s, not 50 ms, which a loaded machine can miss between two awaited
  // syncs (the other process then drops out and the shares double).
  const FLEET_SYNC_INTERVAL = 5000;

  it('two processes share one ratio budget: each spends its share of the fleet allowance', async () => {
    const options = { key: 'ratio-1', ratio: 0.1, minRetries: 10, window: 60_000, syncInterval: FLEET_SYNC_INTERVAL };
    const a = track(sharedRatioBudget({ redis: client(), id: 'a', ...options }));
    const b = track(sharedRatioBudget({ redis: client(), id: 'b', ...options }));
    expect(a.mode).toBe('local'); // before the first sync
    await Promise.all([shared(a), shared(b)]);
    await a.sync();
    await b.sync();
    expect(a.status.members).toBe(2);
    // Each process may spend half of the 10 minimum retries before it hears from the other.
    const spend = (budget: SharedRetryBudget) => {
      let n = 0;
      while (budget.canRetry()) {
        budget.onAttempt(true);
        n += 1;
      }
      return n;
    };
    expect(spend(a)).toBe(5);
    expect(spend(b)).toBe(5);
    await a.sync();
    await b.sync();
    await a.sync();
    // The fleet used the whole allowance: nobody may retry until first attempts earn more.
    expect(a.canRetry()).toBe(false);
    expect(b.canRetry()).toBe(false);
    expect(a.retryRatio).toBe(1);
    for (let i = 0; i < 200; i++) a.onAttempt(false);
    await a.sync();
    await b.sync();
    // 210 attempts, 10 retries: the fleet may have 21. b gets half of the 11 left (5.5), plus 0.1 per
    // attempt it makes meanwhile (its retries are attempts too): 6, and the fleet stays within 10 %.
    expect(spend(b)).toBe(6);
  });

  it('a token bucket shared by two processes: failures anywhere drain it for both', async () => {
    const options = { key: 'bucket-1', maxTokens: 10, tokenRatio: 0.5, syncInterval: FLEET_SYNC_INTERVAL };
    const a = track(sharedTokenBucketBudget({ redis: client(), id: 'a', ...options }));
    const b = track(sharedTokenBucketBudget({ redis: client(), id: 'b', ...options }));
    await Promise.all([shared(a), shared(b)]);
    await a.sync();
    await b.sync();
    for (let i = 0; i < 5; i++) a.onTransientFailure();
    expect(a.canRetry()).toBe(false); // a spent its half of the 5-token headroom
    expect(b.canRetry()).toBe(true);
    await a.sync();
    await b.sync();
    expect(b.tokens).toBe(5);
    expect(b.canRetry()).toBe(false); // A6: retries only while tokens > maxTokens / 2
    for (let i = 0; i < 4; i++) b.onSuccess();
    await b.sync();
    await a.sync();
    expect(a.tokens).toBe(7);
    expect(a.canRetry()).toBe(true);
  });

  it('falls back to local while Redis is down, says so in mode$ and the meter, and comes back (NOSCRIPT reloaded)', async () => {
    const counters = new Map<string, number>();
    let gauge: ((r: { observe(v: number): void }) => void) | undefined;
    const meter = {
      createCounter: (name: string) => ({ add: (v: number) => counters.set(name, (counters.get(name) ?? 0) + v) }),
      createObservableGauge: () => ({
        addCallback: (cb: typeof gauge) => {
          gauge = cb;
        },
        removeCallback: () => {
          gauge = undefined;
        },
      }),
    };
    const observe = () => {
      let value = NaN;
      gauge?.({ observe: (v) => (value = v) });
      return value;
    };
    // The background syncs find the outage (ioredis is not ready) and the way back; a sync that merely
    // took long on a loaded machine must not count as an outage, hence a timeout far above a loopback call.
    const budget = track(
      sharedRatioBudget({ redis: client(), key: 'outage', minRetries: 1, syncInterval: 50, syncTimeout: 5000, meter }),
    );
    const modes: string[] = [];
    budget.mode$.subscribe((m) => modes.push(m));
    await shared(budget);
    expect(observe()).toBe(1);
    await redis.stop();
    await until(() => budget.mode === 'local', 'the budget to fall back');
    expect(observe()).toBe(0);
    expect(budget.status.syncFailures).toBeGreaterThan(0);
    expect(counters.get('redialer.retry_budget.sync_failures')).toBeGreaterThan(0);
    // Decisions go on, from the local budget, without waiting.
    expect(budget.canRetry()).toBe(true);
    budget.onAttempt(true);
    expect(budget.canRetry()).toBe(false);
    await redis.start(); // an empty Redis: the script must be loaded again
    await until(() => budget.mode === 'shared', 'the budget to sync again', 30_000);
    expect(modes).toEqual(['local', 'shared', 'local', 'shared']);
    budget.close();
    expect(gauge).toBeUndefined();
  });

  it('the same object plugs into retry(), retryBackoff() and budgetedConnector()', async () => {
    const budget = track(
      sharedRatioBudget({ redis: client(), key: 'plug', ratio: 0, minRetries: 2, syncInterval: 50 }),
    );
    await shared(budget);
    let calls = 0;
    const error = await retry(
      () => {
        calls += 1;
        throw new HttpResponseError({ status: 503, headers: new Headers() });
      },
      { budget, maxAttempts: 10, backoff: constantBackoff(1) },
    ).catch((e: unknown) => e as RetryError);
    expect(error.reason).toBe('throttled');
    expect(calls).toBe(3); // two retries allowed, the third refused
    const failing = defer(() => throwError(() => new HttpResponseError({ status: 503, headers: new Headers() })));
    const piped = await firstValueFrom(
      failing.pipe(retryBackoff({ budget, maxAttempts: 10, backoff: constantBackoff(1) })),
    ).catch((e: unknown) => e as RetryError);
    expect(piped.reason).toBe('throttled');
    const fake = createFakeConnector((attempt) => {
      attempt.fail(new Error('ECONNREFUSED'));
    });
    const manager = new ConnectionManager({
      connector: budgetedConnector(fake.connector, budget),
      backoff: constantBackoff(5),
      minConnectTimeout: 1,
    });
    let refused = 0;
    manager.state$.subscribe((s) => {
      if (s.state === 'TRANSIENT_FAILURE' && isRetryThrottledError(s.lastError)) refused += 1;
    });
    manager.connect();
    await until(() => refused >= 2, 'two refused reconnections');
    manager.shutdown();
    // Only the first attempt reached the connector: the reconnections were refused before anything was sent.
    expect(fake.attempts).toHaveLength(1);
  });

  it('rejects bad options naming the option and the value', () => {
    expect(() => sharedRatioBudget({ redis: {} as never, key: 'k' })).toThrow(/"redis"/);
    expect(() => sharedRatioBudget({ redis: client(), key: '' })).toThrow(/"key".*""/);
    expect(() => sharedRatioBudget({ redis: client(), key: 'k', syncInterval: 0 })).toThrow(/"syncInterval".*0/);
    expect(() => sharedTokenBucketBudget({ redis: client(), key: 'k', maxTokens: 2000, tokenRatio: 1 })).toThrow(
      /"maxTokens".*2000/,
    );
  });
});
