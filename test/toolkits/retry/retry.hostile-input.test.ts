/**
 * Hostile input to retry(): Retry-After and grpc-retry-pushback-ms fuzzed through the real parsing paths
 * (never a NaN, infinite or negative sleep), and each option given a hostile value (a TypeError/RangeError
 * naming it, thrown before any attempt).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialBackoff } from '../../../src/index.js';
import { MAX_DELAY_MS } from '../../../src/core/index.js';
import { type DelaySource, HttpResponseError, type RetryOptions, retry } from '../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import { expectNamed, finiteIn, forEachHostileOption, hostileText } from '../../support/hostile-input.js';
import { drive, grpcError } from './support.js';

/**
 * retry() on a virtual clock around an operation that throws `failure()` on its first call and returns
 * 'ok' on the next (two attempts at most): the outcome, the calls made, and each retry's wait and its
 * source.
 */
async function failOnceThenOk(failure: () => Error, options: RetryOptions = {}) {
  const clock = createVirtualClock();
  const delays: number[] = [];
  const sources: DelaySource[] = [];
  let calls = 0;
  const outcome = await drive(
    clock,
    retry(
      () => {
        calls += 1;
        if (calls === 1) throw failure();
        return 'ok';
      },
      {
        scheduler: clock.scheduler,
        maxAttempts: 2,
        ...options,
        metrics: {
          record: (e) => {
            if (e.type !== 'retry') return;
            delays.push(e.delay);
            sources.push(e.source);
          },
        },
      },
    ),
  );
  return { clock, outcome, calls, delays, sources };
}

describe('hostile server hints through the real paths: never a NaN, infinite or negative sleep', () => {
  it('Retry-After through retry(): each wait is finite, in [0, maxRetryAfter], and is the time that actually passes', async () => {
    const bySource = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText,
          fc.array(hostileText, { maxLength: 3 }),
          fc.double().map((d) => d as unknown as string),
          fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String), // valid delay-seconds, up to absurd
          fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        fc.constantFrom(429, 503),
        async (value, status) => {
          const { clock, outcome, delays, sources } = await failOnceThenOk(
            () => new HttpResponseError({ status, headers: { 'retry-after': value as string } }),
            { maxRetryAfter: 60_000, backoff: exponentialBackoff({ initialDelay: 10, maxDelay: 1000 }) },
          );
          for (const source of sources) bySource.set(source, (bySource.get(source) ?? 0) + 1);
          expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok' });
          expect(delays).toHaveLength(1);
          expect(finiteIn(delays[0]!, 0, 60_000)).toBe(true);
          expect(outcome.status === 'fulfilled' && outcome.at).toBeCloseTo(delays[0]!, 6);
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
    // Both paths ran: hints that were honoured, and hints that fell back to the own backoff.
    expect(bySource.get('retry-after')).toBeGreaterThan(50);
    expect(bySource.get('backoff')).toBeGreaterThan(50);
  });

  it('grpc-retry-pushback-ms through retry(): a wait finite and in [0, MAX_DELAY_MS], or no retry at all (gRFC A6: a bad value stops)', async () => {
    const seen = { total: 0, waited: 0, stopped: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText.map((v) => [v]),
          fc.array(hostileText, { maxLength: 3 }),
        ),
        async (values) => {
          seen.total += 1;
          const { clock, outcome, calls, delays } = await failOnceThenOk(() =>
            grpcError(14, { 'grpc-retry-pushback-ms': values }),
          );
          if (outcome.status === 'fulfilled') {
            seen.waited += 1;
            expect(delays).toHaveLength(1);
            expect(finiteIn(delays[0]!, 0, MAX_DELAY_MS)).toBe(true);
            expect(outcome.at).toBeCloseTo(delays[0]!, 6);
          } else {
            seen.stopped += 1;
            expect(calls).toBe(1); // pushback said stop: no second attempt
            expect(delays).toEqual([]);
          }
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
    expect(seen.waited).toBeGreaterThan(50);
    expect(seen.stopped).toBeGreaterThan(50);
  });
});

const RETRY_OPTIONS = [
  'maxAttempts',
  'totalTimeout',
  'backoff',
  'classify',
  'idempotency',
  'precondition',
  'serverHints',
  'maxRetryAfter',
  'budget',
  'metrics',
  'scheduler',
  'random',
  'signal',
  'attemptTimeout',
  'attemptSpacing',
  'onUnhandledError',
] as const;

describe('hostile adapter options: each bad value gets a TypeError/RangeError naming the option', () => {
  it('retry(): one hostile option at a time, thrown before any attempt', () => {
    forEachHostileOption(RETRY_OPTIONS, (key, value) => {
      let attempts = 0;
      let threw = false;
      expectNamed(key, () => {
        try {
          // A value accepted starts the call; it never settles on its own, so nothing is awaited.
          void retry(
            () => {
              attempts += 1;
              return new Promise<never>(() => undefined);
            },
            { [key]: value },
          ).catch(() => undefined);
        } catch (error) {
          threw = true;
          throw error;
        }
      });
      if (threw) expect(attempts).toBe(0);
    });
  });

  it('the check can fail: a known bad value of each option is rejected, naming it', () => {
    expect(() => retry(() => 1, { maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});
