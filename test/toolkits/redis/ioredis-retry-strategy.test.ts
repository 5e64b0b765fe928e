/** The ioredis reconnect schedule: gRPC's by default, jittered from the first wait on, capped. */
import { describe, expect, it } from 'vitest';
import { constantBackoff, grpcBackoff } from '../../../src/index.js';
import { ioredisRetryStrategy } from '../../../src/toolkits/redis/index.js';
import { seededRandom } from '../../support/seeded-random.js';

describe('ioredisRetryStrategy', () => {
  it('follows gRPC backoff capped at 20 s, with the first wait jittered by ±20 %', () => {
    const mid = ioredisRetryStrategy({ random: () => 0.5 });
    expect([1, 2, 3, 4, 10, 20, 1000].map((n) => mid(n))).toEqual([1000, 1600, 2560, 4096, 20_000, 20_000, 20_000]);
    const low = ioredisRetryStrategy({ random: () => 0 });
    const high = ioredisRetryStrategy({ random: () => 1 });
    expect([low(1), high(1)]).toEqual([800, 1200]);
    expect([low(30), high(30)]).toEqual([16_000, 24_000]);
  });

  it('spreads a fleet: 1000 processes that lost Redis together do not come back together', () => {
    const random = seededRandom(7);
    const firsts = Array.from({ length: 1000 }, () => ioredisRetryStrategy({ random })(1)!);
    expect(Math.min(...firsts)).toBeGreaterThanOrEqual(800);
    expect(Math.max(...firsts)).toBeLessThanOrEqual(1200);
    // No 1-ms slot holds more than a few of them (BullMQ's own strategy puts all 1000 at 1000 ms).
    const slots = new Map<number, number>();
    for (const f of firsts) slots.set(f, (slots.get(f) ?? 0) + 1);
    expect(Math.max(...slots.values())).toBeLessThan(15);
  });

  it('takes any policy, gives up after maxAttempts, and reports each wait', () => {
    const waits: [number, number][] = [];
    const strategy = ioredisRetryStrategy({
      backoff: constantBackoff(100),
      firstJitter: 0,
      maxAttempts: 3,
      onRetry: (n, d) => waits.push([n, d]),
    });
    expect([1, 2, 3, 4].map((n) => strategy(n))).toEqual([100, 100, 100, null]);
    expect(waits).toEqual([
      [1, 100],
      [2, 100],
      [3, 100],
    ]);
    expect(ioredisRetryStrategy({ backoff: grpcBackoff({ initialBackoff: 50 }), firstJitter: 0 })(1)).toBe(50);
  });

  it('rejects bad options naming the option and the value', () => {
    expect(() => ioredisRetryStrategy({ firstJitter: 2 })).toThrow(/"firstJitter".*2/);
    expect(() => ioredisRetryStrategy({ maxAttempts: 0 })).toThrow(/"maxAttempts".*0/);
    expect(() => ioredisRetryStrategy({ backoff: {} as never })).toThrow(/"backoff"/);
  });
});
