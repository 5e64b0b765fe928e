import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grpcRetryBackoff, grpcRetryPolicy, retry } from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { seededRandom } from '../../../support/seeded-random.js';
import { drive, grpcError, rejection } from '../support.js';

const config = { initialBackoff: 100, maxBackoff: 1000, backoffMultiplier: 2 } as const;

function waits(policy: ReturnType<typeof grpcRetryBackoff>, random: () => number, n: number): number[] {
  const out: number[] = [];
  let step = policy.first(random);
  out.push(step.delay);
  for (let i = 1; i < n; i++) {
    step = step.next(random);
    out.push(step.delay);
  }
  return out;
}

describe('grpcRetryBackoff (gRFC A6 backoff, ±20 % jitter as in gRPC core)', () => {
  it('nominal waits at random = 0.5: min(initial × multiplier^(n−1), max)', () => {
    expect(waits(grpcRetryBackoff(config), () => 0.5, 6)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('edges of the jitter: ×0.8 at random = 0, ×1.2 at random = 1, the first wait included', () => {
    expect(waits(grpcRetryBackoff(config), () => 0, 5)).toEqual([80, 160, 320, 640, 800]);
    expect(waits(grpcRetryBackoff(config), () => 1, 5)).toEqual([120, 240, 480, 960, 1200]);
  });

  it("jitter: 'full' is A6's text: uniform(0, backoff)", () => {
    expect(waits(grpcRetryBackoff({ ...config, jitter: 'full' }), () => 0.5, 5)).toEqual([50, 100, 200, 400, 500]);
  });

  it('property: every wait stays within ±20 % of its nominal value, and the jitter never compounds', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = seededRandom(seed);
        return waits(grpcRetryBackoff(config), random, 12).every((w, i) => {
          const nominal = Math.min(100 * 2 ** i, 1000);
          return w >= nominal * 0.8 - 1e-9 && w <= nominal * 1.2 + 1e-9;
        });
      }),
    );
  });
});

describe('grpcRetryPolicy', () => {
  it('maxAttempts above 5 is treated as 5 (A6); below 2 is rejected', () => {
    expect(grpcRetryPolicy({ ...config, maxAttempts: 9, retryableStatusCodes: ['UNAVAILABLE'] }).maxAttempts).toBe(5);
    expect(() => grpcRetryPolicy({ ...config, maxAttempts: 1, retryableStatusCodes: ['UNAVAILABLE'] })).toThrow(
      /maxAttempts.*>= 2/,
    );
    expect(() => grpcRetryPolicy({ ...config, maxAttempts: 3, retryableStatusCodes: [] })).toThrow(
      /retryableStatusCodes/,
    );
    expect(() => grpcRetryPolicy({ ...config, maxAttempts: 3, retryableStatusCodes: ['NOT_A_CODE'] })).toThrow(
      /"NOT_A_CODE"/,
    );
    expect(() => grpcRetryPolicy({ ...config, initialBackoff: 0, maxAttempts: 3, retryableStatusCodes: [14] })).toThrow(
      /initialBackoff/,
    );
  });

  it('retries exactly the listed codes, up to the attempt limit', async () => {
    const policy = grpcRetryPolicy({ ...config, maxAttempts: 4, retryableStatusCodes: ['UNAVAILABLE', 'INTERNAL'] });
    const clock = createVirtualClock();
    let calls = 0;
    const failing = retry(
      () => {
        calls++;
        return Promise.reject(grpcError(13));
      },
      { ...policy, scheduler: clock.scheduler, random: () => 0.5 },
    );
    const error = rejection(await drive(clock, failing));
    expect(error).toMatchObject({ reason: 'attempts', attempts: 4 });
    expect(calls).toBe(4);
    expect(clock.now()).toBe(100 + 200 + 400);

    const notListed = grpcError(14 - 4); // ABORTED: not in this policy
    const once = retry(() => Promise.reject(notListed), { ...policy, scheduler: clock.scheduler });
    expect(rejection(await drive(clock, once))).toBe(notListed);
  });
});
