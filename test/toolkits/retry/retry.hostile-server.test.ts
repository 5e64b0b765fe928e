/**
 * A hostile server against the retry path, on virtual time: any Retry-After or grpc-retry-pushback-ms
 * value yields a wait within [backoff, max(backoff, maxRetryAfter)] — a hint is a floor, never a
 * replacement — or a clean give-up; and hostile error values, timers past 2^31 - 1 ms, a 0 ms RTO and
 * a throwing metrics sink cannot break a call.
 */
import fc from 'fast-check';
import { config } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { constantBackoff } from '../../../src/index.js';
import { MAX_DELAY_MS } from '../../../src/core/index.js';
import {
  HttpResponseError,
  RtoTracker,
  isRetryError,
  parseRetryAfter,
  retry,
} from '../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import { revokedProxy, trappingProxy } from '../../support/hostile-errors.js';
import { hostLikeScheduler } from '../../support/host-like-scheduler.js';
import { drive, flush, grpcError, rejection } from './support.js';

const UNAVAILABLE = 14;

/** Retry-After values: garbage, digit runs, and HTTP-dates from the far past to the far future. */
const retryAfterValue = (now: number) =>
  fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.stringMatching(/^\d{1,25}$/),
    fc.constantFrom('0', '-1', ' 5 ', '1e3', '2147483648', '9'.repeat(40)),
    fc.date({ min: new Date(0), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toUTCString()),
    fc.integer({ min: -10 * 86_400_000, max: 10 * 86_400_000 }).map((offset) => new Date(now + offset).toUTCString()),
  );

/** Pushback values: garbage and any digit run, up to 40 digits. */
const pushbackValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^\d{1,40}$/),
  fc.constantFrom('0', '-1', '2147483648', '99999999999999999999'),
);

interface Case {
  readonly backoff: number;
  readonly maxRetryAfter: number;
  readonly totalTimeout: number;
}

const settings = fc.record({
  backoff: fc.integer({ min: 0, max: 120_000 }),
  maxRetryAfter: fc.oneof(fc.integer({ min: 0, max: 600_000 }), fc.constant(60_000)),
  totalTimeout: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 10 * 86_400_000 })),
});

/** One failure carrying `error`, then success: the wait between the attempts, or the give-up. */
async function oneRetry(error: unknown, c: Case, clock = createVirtualClock(Date.UTC(2026, 5, 1))) {
  const starts: number[] = [];
  const outcome = await drive(
    clock,
    retry(
      () => {
        starts.push(clock.now());
        if (starts.length === 1) throw error;
        return 'ok';
      },
      {
        scheduler: clock.scheduler,
        backoff: constantBackoff(c.backoff),
        maxRetryAfter: c.maxRetryAfter,
        totalTimeout: c.totalTimeout,
      },
    ),
  );
  expect(clock.pendingTimers()).toBe(0);
  return { outcome, wait: starts.length === 2 ? (starts[1] ?? 0) - (starts[0] ?? 0) : undefined };
}

describe('a hostile server against retry(): a hint is a floor, bounded by maxRetryAfter', () => {
  it('any Retry-After: a wait in [backoff, max(backoff, maxRetryAfter)], at least the (capped) hint less its spread, or a clean give-up', async () => {
    const now = Date.UTC(2026, 5, 1);
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(retryAfterValue(now), settings, fc.constantFrom(429, 503), async (value, c, status) => {
        const { outcome, wait } = await oneRetry(
          new HttpResponseError({ status, headers: { 'retry-after': value } }),
          c,
        );
        const hint = parseRetryAfter(value, now);
        const capped = Math.min(hint ?? 0, c.maxRetryAfter);
        if (wait === undefined) {
          const error = rejection(outcome);
          expect(isRetryError(error)).toBe(true);
          const reason = (error as { reason: string }).reason;
          expect(['deadline', 'retry-after-beyond-deadline']).toContain(reason);
          if (reason === 'retry-after-beyond-deadline') expect(capped).toBeGreaterThanOrEqual(c.totalTimeout);
          else expect(c.backoff).toBeGreaterThanOrEqual(c.totalTimeout);
          kinds.add('give-up');
          return;
        }
        expect(Number.isFinite(wait)).toBe(true);
        expect(wait).toBeGreaterThanOrEqual(c.backoff);
        expect(wait).toBeLessThanOrEqual(Math.max(c.backoff, c.maxRetryAfter));
        expect(wait).toBeGreaterThanOrEqual(capped * 0.8 - 1e-6);
        expect(wait).toBeLessThan(c.totalTimeout);
        kinds.add(hint === undefined ? 'ignored' : wait > c.backoff ? 'hint' : 'backoff');
      }),
      { numRuns: 400 },
    );
    // Each kind of outcome occurred: the property was not checked on one path only.
    expect([...kinds].sort()).toEqual(['backoff', 'give-up', 'hint', 'ignored']);
  });

  it('any grpc-retry-pushback-ms: a wait in [backoff, max(backoff, maxRetryAfter)], no retry for a malformed value, or a clean give-up', async () => {
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(pushbackValue, settings, async (value, c) => {
        const { outcome, wait } = await oneRetry(grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': value }), c);
        if (wait === undefined) {
          const reason = (rejection(outcome) as { reason: string }).reason;
          expect(['deadline', 'retry-after-beyond-deadline', 'server-pushback']).toContain(reason);
          kinds.add(reason);
          return;
        }
        const asked = Math.min(Number(value.trim()), MAX_DELAY_MS, c.maxRetryAfter);
        expect(wait).toBeGreaterThanOrEqual(c.backoff);
        expect(wait).toBeLessThanOrEqual(Math.max(c.backoff, c.maxRetryAfter));
        expect(wait).toBeGreaterThanOrEqual(asked * 0.8 - 1e-6);
        kinds.add('retried');
      }),
      { numRuns: 400 },
    );
    expect(kinds).toContain('retried');
    expect(kinds).toContain('server-pushback');
  });

  it('Retry-After: 0 from every client does not bring them back at once, nor together', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { wait } = await oneRetry(new HttpResponseError({ status: 503, headers: { 'retry-after': '0' } }), {
        backoff: 1000,
        maxRetryAfter: 60_000,
        totalTimeout: Infinity,
      });
      waits.push(wait ?? -1);
    }
    expect(waits.every((w) => w === 1000)).toBe(true);
    // A hint longer than the backoff, the same for 20 clients: spread over up to 20 % instead of lockstep.
    const clock = createVirtualClock();
    const hinted = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const { wait } = await oneRetry(
        new HttpResponseError({ status: 503, headers: { 'retry-after': '10' } }),
        {
          backoff: 1000,
          maxRetryAfter: 60_000,
          totalTimeout: Infinity,
        },
        clock,
      );
      hinted.add(wait ?? -1);
    }
    expect(hinted.size).toBeGreaterThan(10);
    expect(Math.min(...hinted)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...hinted)).toBeLessThanOrEqual(12_000);
  });

  it('a client clock ahead of the server: every date hint reads as past, and the backoff still applies', async () => {
    const serverNow = Date.UTC(2026, 5, 1);
    const clientAhead = createVirtualClock(serverNow + 3_600_000);
    const value = new Date(serverNow + 30_000).toUTCString(); // "come back in 30 s" by the server's clock
    const { wait } = await oneRetry(
      new HttpResponseError({ status: 503, headers: { 'retry-after': value } }),
      {
        backoff: 2000,
        maxRetryAfter: 60_000,
        totalTimeout: Infinity,
      },
      clientAhead,
    );
    expect(wait).toBe(2000);
  });
});

describe('the floor on attempt starts in retry()', () => {
  it('constantBackoff(0) with maxAttempts Infinity against a server that keeps failing: 5 at once, then one per 100 ms', async () => {
    const clock = createVirtualClock();
    const starts: number[] = [];
    const controller = new AbortController();
    const promise = retry(
      () => {
        starts.push(clock.now());
        if (starts.length >= 5000) controller.abort(new Error('runaway'));
        throw new HttpResponseError({ status: 503, headers: { 'retry-after': '0' } });
      },
      { scheduler: clock.scheduler, backoff: constantBackoff(0), maxAttempts: Infinity, signal: controller.signal },
    ).catch(() => undefined);
    // Timer by timer, as drive() does, for 10 s of virtual time.
    for (let i = 0; i < 20_000 && starts.length < 5000; i++) {
      await flush();
      const next = clock.scheduler.actions[0];
      if (next === undefined || next.delay > 10_000) break;
      clock.advanceTo(next.delay);
    }
    controller.abort(new Error('done'));
    await promise;
    expect(starts.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 100, 200]);
    expect(starts.length).toBeLessThanOrEqual(105);
  });
});

describe('timers past 2^31 - 1 ms in retry()', () => {
  it('totalTimeout 3e9 cuts the attempt at 3e9 ms, not at 24.8 days or after 1 ms', async () => {
    const host = hostLikeScheduler();
    let outcome: unknown;
    void retry(() => new Promise<never>(() => undefined), { scheduler: host.scheduler, totalTimeout: 3e9 }).catch(
      (e: unknown) => {
        outcome = e;
      },
    );
    expect(Math.max(...host.arms)).toBeLessThanOrEqual(MAX_DELAY_MS);
    host.runUntil(MAX_DELAY_MS + 10);
    await flush();
    expect(outcome).toBeUndefined();
    host.runUntil(3e9);
    await flush();
    expect(outcome).toMatchObject({ reason: 'deadline' });
    expect(host.pending()).toBe(0);
  });

  it('attemptTimeout 3e9 likewise', async () => {
    const host = hostLikeScheduler();
    let attempts = 0;
    void retry(
      () => {
        attempts += 1;
        return new Promise<never>(() => undefined);
      },
      { scheduler: host.scheduler, attemptTimeout: 3e9, maxAttempts: 1 },
    ).catch(() => undefined);
    host.runUntil(MAX_DELAY_MS + 10);
    await flush();
    expect(attempts).toBe(1);
    expect(host.pending()).toBe(1);
    host.runUntil(3e9);
    await flush();
    expect(host.pending()).toBe(0);
  });
});

describe('hostile error values in retry()', () => {
  it.each([
    ['a revoked Proxy', revokedProxy],
    ['a Proxy whose traps throw', trappingProxy],
  ])('%s is classified permanent and rethrown, unchanged', async (_name, make) => {
    const clock = createVirtualClock();
    const hostile = make();
    const outcome = await drive(
      clock,
      retry(
        () => {
          throw hostile;
        },
        { scheduler: clock.scheduler },
      ),
    );
    expect(outcome.status === 'rejected' && outcome.error === hostile).toBe(true);
  });

  it('a hostile value in a response header slot is ignored, the backoff applies', async () => {
    const clock = createVirtualClock();
    const error = Object.assign(new Error('503'), { status: 503, headers: revokedProxy() });
    const { wait } = await oneRetry(error, { backoff: 700, maxRetryAfter: 60_000, totalTimeout: Infinity }, clock);
    expect(wait).toBe(700);
  });
});

describe('RtoTracker({ minRto: 0, granularity: 0 })', () => {
  it('never yields a 0 ms timeout: after a 0 ms sample the RTO is 1 ms and retry() keeps working', async () => {
    const tracker = new RtoTracker({ minRto: 0, granularity: 0 });
    tracker.onSuccess(0);
    expect(tracker.current()).toBe(1);
    const clock = createVirtualClock();
    const outcome = await drive(
      clock,
      retry(() => 'ok', { scheduler: clock.scheduler, attemptTimeout: tracker }),
    );
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });
});

describe('a throwing metrics sink', () => {
  const throwingSink = {
    record: (): never => {
      throw new Error('sink');
    },
  };

  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('goes to onUnhandledError; the call is unharmed', async () => {
    const clock = createVirtualClock();
    const routed: unknown[] = [];
    const outcome = await drive(
      clock,
      retry(() => 'ok', {
        scheduler: clock.scheduler,
        metrics: throwingSink,
        onUnhandledError: (e) => routed.push(e),
      }),
    );
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(routed.map((e) => (e as Error).message)).toEqual(['sink', 'sink']);
  });

  it("without the option, to RxJS's config.onUnhandledError", async () => {
    const clock = createVirtualClock();
    const routed: unknown[] = [];
    config.onUnhandledError = (e: unknown) => routed.push(e);
    await drive(
      clock,
      retry(() => 'ok', {
        scheduler: clock.scheduler,
        metrics: throwingSink,
      }),
    );
    expect(routed).toHaveLength(2);
  });
});
