import { defer, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { constantBackoff, exponentialBackoff } from '../../../../src/index.js';
import {
  HttpResponseError,
  isRetriesExhausted,
  retryBackoff,
  tokenBucketBudget,
  type RetryEvent,
} from '../../../../src/toolkits/retry/index.js';
import { systemError } from '../support.js';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
});

const reset = systemError('ECONNRESET');
const giveUp = (reason: string, attempts: number): unknown =>
  expect.objectContaining({ name: 'RetryError', reason, attempts });

describe('retryBackoff(): marble tests', () => {
  it('resubscribes after each transient error, after the backoff, and gives up at the attempt limit', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--#', undefined, reset);
      const result = source.pipe(retryBackoff({ maxAttempts: 3, backoff: constantBackoff(5), scheduler }));
      // Each wait runs from the attempt's start: subscriptions at 0, 5, 10.
      expectObservable(result).toBe('12ms #', undefined, giveUp('attempts', 3));
      expectSubscriptions(source.subscriptions).toBe(['^-!', '5ms ^-!', '10ms ^-!']);
    });
  });

  it('passes values through and completes when an attempt succeeds', () => {
    scheduler.run(({ cold, expectObservable }) => {
      let n = 0;
      const source = defer(() => (++n < 3 ? cold('-a#', { a: n }, reset) : cold('-a|', { a: n })));
      // Attempts start at 0, 3 and 6: each wait runs from the attempt's start.
      expectObservable(source.pipe(retryBackoff({ backoff: constantBackoff(3), scheduler }))).toBe('-a--b--c|', {
        a: 1,
        b: 2,
        c: 3,
      });
    });
  });

  it('passes a permanent error on at once, marked so that an outer layer does not retry it', () => {
    const notFound = new HttpResponseError({ status: 404, headers: {} });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--#', undefined, notFound);
      expectObservable(source.pipe(retryBackoff({ scheduler }))).toBe('--#', undefined, notFound);
      expectSubscriptions(source.subscriptions).toBe(['^-!']);
    });
    expect(isRetriesExhausted(notFound)).toBe(true);
  });

  it('without resetOnSuccess the backoff keeps growing and the attempt limit counts every error', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a#', { a: 'x' }, reset);
      const backoff = exponentialBackoff({ initialDelay: 10, multiplier: 2, jitter: 'none' });
      // Subscriptions at 0, 0+10, 10+20 (from each attempt's start): three values, then the limit.
      expectObservable(source.pipe(retryBackoff({ maxAttempts: 3, backoff, scheduler }))).toBe(
        'a 9ms a 19ms a#',
        { a: 'x' },
        giveUp('attempts', 3),
      );
    });
  });

  it('resetOnSuccess: each value starts a new episode, so the backoff and the attempt count start again', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a#', { a: 'x' }, reset);
      const backoff = exponentialBackoff({ initialDelay: 10, multiplier: 2, jitter: 'none' });
      const result = source.pipe(retryBackoff({ maxAttempts: 2, backoff, resetOnSuccess: true, scheduler }), take(4));
      // Every wait is the first step (10), and maxAttempts 2 never runs out because each attempt emits.
      // Each wait (the first step, 10) runs from the value that began the episode.
      expectObservable(result).toBe('a 9ms a 9ms a 9ms (a|)', { a: 'x' });
    });
  });

  it('unsubscribing during the wait cancels it: no further subscription', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--#', undefined, reset);
      expectObservable(source.pipe(retryBackoff({ backoff: constantBackoff(100), scheduler })), '^ 9ms !').toBe('');
      expectSubscriptions(source.subscriptions).toBe(['^-!']);
    });
  });

  it('honours Retry-After on a stream error', () => {
    const busy = new HttpResponseError({ status: 503, headers: { 'retry-after': '2' } });
    scheduler.run(({ cold, expectSubscriptions, expectObservable }) => {
      const source = cold('#', undefined, busy);
      expectObservable(
        source.pipe(retryBackoff({ maxAttempts: 2, backoff: constantBackoff(1), scheduler, random: () => 0 })),
      ).toBe('2000ms #', undefined, giveUp('attempts', 2));
      expectSubscriptions(source.subscriptions).toBe(['(^!)', '2000ms (^!)']);
    });
  });

  it('gives up at once when the next wait would pass the total deadline', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('--#', undefined, reset);
      const result = source.pipe(
        retryBackoff({ maxAttempts: 100, totalTimeout: 20, backoff: constantBackoff(5), scheduler }),
      );
      // Attempts at 0, 5, 10, 15 fail at 2, 7, 12, 17; the next would start at 20, the deadline.
      expectObservable(result).toBe('17ms #', undefined, giveUp('deadline', 4));
    });
  });

  it('does not resubscribe a non-idempotent source after a failure that may have reached the server', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, reset);
      expectObservable(source.pipe(retryBackoff({ idempotency: 'never', scheduler }))).toBe(
        '-#',
        undefined,
        giveUp('not-idempotent', 1),
      );
      expectSubscriptions(source.subscriptions).toBe(['^!']);
    });
  });

  it('reports the same events as retry()', () => {
    const events: RetryEvent[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      let n = 0;
      const source = defer(() => (++n < 2 ? cold('#', undefined, reset) : cold('a|', { a: 1 })));
      expectObservable(
        source.pipe(
          retryBackoff({ backoff: constantBackoff(1), scheduler, metrics: { record: (e) => events.push(e) } }),
        ),
      ).toBe('-a|', { a: 1 });
    });
    expect(events.map((e) => `${e.type}:${String(e.attempt)}`)).toEqual([
      'attempt:1',
      'retry:1',
      'attempt:2',
      'success:2',
    ]);
  });

  it('each subscriber gets its own attempt count and backoff', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('-#', undefined, reset);
      const shared = source.pipe(retryBackoff({ maxAttempts: 2, backoff: constantBackoff(3), scheduler }));
      expectObservable(shared).toBe('4ms #', undefined, giveUp('attempts', 2));
      expectObservable(shared, '2ms ^').toBe('6ms #', undefined, giveUp('attempts', 2));
    });
  });

  it('shares a retry budget with other streams: once the bucket is at half, errors pass on as throttled', () => {
    const budget = tokenBucketBudget({ maxTokens: 3, tokenRatio: 1 });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-#', undefined, reset);
      const limited = source.pipe(retryBackoff({ maxAttempts: 10, backoff: constantBackoff(2), budget, scheduler }));
      // 3 tokens, threshold 1.5: failure 1 -> 2 (retry), failure 2 -> 1 (throttled).
      expectObservable(limited).toBe('3ms #', undefined, giveUp('throttled', 2));
      expectSubscriptions(source.subscriptions).toBe(['^!', '2ms ^!']);
    });
  });

  it('bad options throw at once', () => {
    expect(() => retryBackoff({ resetOnSuccess: 'yes' as never })).toThrow(/resetOnSuccess.*"yes"/);
    expect(() => retryBackoff({ maxAttempts: -1 })).toThrow(/maxAttempts/);
  });
});
