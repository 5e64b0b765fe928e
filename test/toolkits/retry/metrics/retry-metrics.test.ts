import { metrics as otel } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { constantBackoff, PermanentError } from '../../../../src/index.js';
import {
  HttpResponseError,
  RetryMetrics,
  recordConnectionAttempts,
  retry,
  tokenBucketBudget,
  type MeterLike,
  type MetricAttributes,
  type RetryMetricsSnapshot,
  type RetryRatioCrossing,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { harness } from '../../../support/harness.js';
import { drive, systemError } from '../support.js';

/** A meter that records what it is asked, shaped like OpenTelemetry's. */
function recordingMeter() {
  const adds: { name: string; value: number; attributes: MetricAttributes | undefined }[] = [];
  const callbacks = new Map<string, ((r: { observe(v: number, a?: MetricAttributes): void }) => void)[]>();
  const meter: MeterLike = {
    createCounter: (name) => ({
      add: (value, attributes) => {
        adds.push({ name, value, attributes });
      },
    }),
    createObservableGauge: (name) => ({
      addCallback: (cb) => {
        callbacks.set(name, [...(callbacks.get(name) ?? []), cb]);
      },
      removeCallback: (cb) => {
        callbacks.set(
          name,
          (callbacks.get(name) ?? []).filter((c) => c !== cb),
        );
      },
    }),
  };
  const observe = (name: string): number[] => {
    const seen: number[] = [];
    for (const cb of callbacks.get(name) ?? []) cb({ observe: (v) => seen.push(v) });
    return seen;
  };
  const total = (name: string): number => adds.filter((a) => a.name === name).reduce((s, a) => s + a.value, 0);
  return { meter, adds, observe, total, callbacks };
}

describe('RetryMetrics fed by retry()', () => {
  it('counts attempts, retries, successes, give-ups, permanent failures and throttled retries', async () => {
    const clock = createVirtualClock();
    const { meter, total, adds } = recordingMeter();
    const metrics = new RetryMetrics({ scheduler: clock.scheduler, meter, attributes: { service: 'checkout' } });
    const base = { scheduler: clock.scheduler, backoff: constantBackoff(10), metrics };

    let n = 0;
    await drive(
      clock,
      retry(() => (++n < 3 ? Promise.reject(systemError('ECONNRESET')) : 'ok'), base),
    ); // 3 attempts, 2 retries, 1 success
    await drive(
      clock,
      retry(() => Promise.reject(new HttpResponseError({ status: 400, headers: {} })), base),
    ); // 1 attempt, permanent
    await drive(
      clock,
      retry(() => Promise.reject(systemError('ECONNRESET')), { ...base, maxAttempts: 2 }),
    ); // 2 attempts, 1 retry, give-up
    const budget = tokenBucketBudget({ maxTokens: 2, tokenRatio: 0.1 });
    await drive(
      clock,
      retry(() => Promise.reject(systemError('ECONNRESET')), { ...base, budget }),
    ); // 1 attempt, throttled

    expect(metrics.snapshot.total).toEqual({
      attempts: 7,
      retries: 3,
      successes: 1,
      giveUps: 2,
      permanentFailures: 1,
      throttledRetries: 1,
    });
    expect(metrics.snapshot.retryRatio).toBeCloseTo(3 / 7);
    expect(total('redialer.retry.attempts')).toBe(7);
    expect(total('redialer.retry.retries')).toBe(3);
    expect(total('redialer.retry.give_ups')).toBe(2);
    expect(total('redialer.retry.permanent_failures')).toBe(1);
    expect(total('redialer.retry.throttled')).toBe(1);
    expect(adds.filter((a) => a.name === 'redialer.retry.give_ups').map((a) => a.attributes)).toEqual([
      { service: 'checkout', reason: 'attempts' },
      { service: 'checkout', reason: 'throttled' },
    ]);
  });

  it('the windowed counts forget what is older than the window; totals do not', () => {
    const clock = createVirtualClock();
    const metrics = new RetryMetrics({ scheduler: clock.scheduler, window: 10_000 });
    metrics.record({ type: 'attempt', attempt: 1 });
    metrics.record({ type: 'attempt', attempt: 2 });
    expect(metrics.snapshot.window).toMatchObject({ attempts: 2, retries: 1 });
    clock.advanceBy(5_000);
    metrics.record({ type: 'attempt', attempt: 1 });
    expect(metrics.snapshot.window).toMatchObject({ attempts: 3, retries: 1 });
    clock.advanceBy(6_000);
    expect(metrics.snapshot.window).toMatchObject({ attempts: 1, retries: 0 });
    expect(metrics.snapshot.retryRatio).toBe(0);
    expect(metrics.snapshot.total).toMatchObject({ attempts: 3, retries: 1 });
  });

  it('snapshot$ replays the latest snapshot and emits after each counted event; close() completes it', () => {
    const clock = createVirtualClock();
    const metrics = new RetryMetrics({ scheduler: clock.scheduler });
    const seen: RetryMetricsSnapshot[] = [];
    let completed = false;
    metrics.snapshot$.subscribe({ next: (s) => seen.push(s), complete: () => (completed = true) });
    metrics.record({ type: 'attempt', attempt: 1 });
    metrics.record({ type: 'success', attempt: 1 });
    expect(seen.map((s) => [s.total.attempts, s.total.successes])).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
    ]);
    metrics.close();
    expect(completed).toBe(true);
  });

  it('fires the hook when the windowed retry ratio crosses the threshold, once each way', () => {
    const clock = createVirtualClock();
    const crossings: RetryRatioCrossing[] = [];
    const metrics = new RetryMetrics({
      scheduler: clock.scheduler,
      window: 10_000,
      ratioThreshold: 0.2,
      minAttempts: 10,
      onRatioCrossed: (c) => crossings.push(c),
    });
    for (let i = 0; i < 10; i++) metrics.record({ type: 'attempt', attempt: 1 });
    metrics.record({ type: 'attempt', attempt: 2 }); // 1/11
    metrics.record({ type: 'attempt', attempt: 2 }); // 2/12
    expect(crossings).toHaveLength(0);
    metrics.record({ type: 'attempt', attempt: 2 }); // 3/13 = 0.23
    metrics.record({ type: 'attempt', attempt: 2 }); // 4/14, still above: no new call
    expect(crossings.map((c) => [c.direction, Number(c.retryRatio.toFixed(3))])).toEqual([['above', 0.231]]);
    for (let i = 0; i < 10; i++) metrics.record({ type: 'attempt', attempt: 1 }); // 4/24 = 0.17
    expect(crossings.map((c) => c.direction)).toEqual(['above', 'below']);
  });

  it('does not judge the ratio before minAttempts: one retry of two attempts is not a trend', () => {
    const crossings: unknown[] = [];
    const metrics = new RetryMetrics({
      scheduler: createVirtualClock().scheduler,
      onRatioCrossed: (c) => crossings.push(c),
    });
    metrics.record({ type: 'attempt', attempt: 1 });
    metrics.record({ type: 'attempt', attempt: 2 });
    expect(crossings).toEqual([]);
  });

  it('exposes the ratio as an observable gauge and detaches it on close()', () => {
    const clock = createVirtualClock();
    const { meter, observe, callbacks } = recordingMeter();
    const metrics = new RetryMetrics({ scheduler: clock.scheduler, meter, prefix: 'api.retry' });
    metrics.record({ type: 'attempt', attempt: 1 });
    metrics.record({ type: 'attempt', attempt: 2 });
    expect(observe('api.retry.ratio')).toEqual([0.5]);
    metrics.close();
    expect(callbacks.get('api.retry.ratio')).toEqual([]);
  });

  it('accepts an @opentelemetry/api meter as it is (type and runtime)', () => {
    const meter: MeterLike = otel.getMeter('redialer-test');
    const metrics = new RetryMetrics({ meter });
    metrics.record({ type: 'attempt', attempt: 1 });
    expect(metrics.snapshot.total.attempts).toBe(1);
    metrics.close();
  });

  it('rejects bad options by name', () => {
    expect(() => new RetryMetrics({ ratioThreshold: 2 })).toThrow(/ratioThreshold.*2/);
    expect(() => new RetryMetrics({ meter: {} as MeterLike })).toThrow(/meter/);
    expect(() => new RetryMetrics({ window: 0 })).toThrow(/window/);
  });
});

describe('recordConnectionAttempts(): the same counters for a ConnectionManager', () => {
  it('derives attempts, retries, successes and permanent failures from state$', () => {
    let calls = 0;
    const h = harness({}, (attempt) => {
      calls++;
      if (calls < 3) attempt.fail(new Error('refused'));
      else if (calls === 3) attempt.establish('conn');
      else attempt.fail(new PermanentError('credentials rejected'));
    });
    const metrics = new RetryMetrics({ scheduler: h.clock.scheduler });
    const subscription = recordConnectionAttempts(h.manager.state$, metrics);
    h.manager.connect();
    h.clock.advanceBy(10_000); // attempts 1, 2 fail; 3 establishes
    expect(metrics.snapshot.total).toMatchObject({
      attempts: 3,
      retries: 2,
      successes: 1,
      permanentFailures: 0,
      giveUps: 0,
    });
    h.fake.last?.fail(new Error('connection lost')); // reconnect: attempt 4 fails permanently
    h.clock.advanceBy(60_000);
    expect(h.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(metrics.snapshot.total).toMatchObject({ attempts: 4, successes: 1, permanentFailures: 1, giveUps: 0 });
    expect(subscription.closed).toBe(true);
  });

  it('a caller shutdown is not a failure', () => {
    const h = harness({}, (attempt) => {
      attempt.fail();
    });
    const metrics = new RetryMetrics({ scheduler: h.clock.scheduler });
    recordConnectionAttempts(h.manager.state$, metrics);
    h.manager.connect();
    h.manager.shutdown();
    expect(metrics.snapshot.total).toMatchObject({ attempts: 1, permanentFailures: 0, giveUps: 0 });
  });
});
