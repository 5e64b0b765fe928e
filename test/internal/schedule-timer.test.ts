import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS } from '../../src/backoff/backoff.js';
import { createVirtualClock } from '../../src/testing/virtual-clock.js';
import { scheduleTimer, scheduleTimerAt } from '../../src/internal/schedule-timer.js';
import { hostLikeScheduler } from '../support/host-like-scheduler.js';

describe('scheduleTimer', () => {
  it('fires once, at its due time on the virtual clock', () => {
    const clock = createVirtualClock();
    const fired: number[] = [];
    scheduleTimer(clock.scheduler, 1500, () => fired.push(clock.now()));
    clock.advanceBy(1499);
    expect(fired).toEqual([]);
    clock.advanceBy(10_000);
    expect(fired).toEqual([1500]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a delay beyond 2^31 - 1 ms is armed in steps and fires at the full delay, never early', () => {
    const host = hostLikeScheduler();
    const fired: number[] = [];
    const delay = 3e9; // 34.7 days
    scheduleTimer(host.scheduler, delay, () => fired.push(host.scheduler.now()));
    expect(Math.max(...host.arms)).toBeLessThanOrEqual(MAX_DELAY_MS);
    host.runUntil(MAX_DELAY_MS);
    expect(fired).toEqual([]);
    host.runUntil(delay + 1);
    expect(fired).toEqual([delay]);
  });

  it('a timer that fires early re-arms for the rest of its wait', () => {
    const host = hostLikeScheduler(3);
    const fired: number[] = [];
    scheduleTimer(host.scheduler, 300, () => fired.push(host.scheduler.now()));
    host.runUntil(1000);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(300);
  });

  it('Infinity never fires and leaves no timer; unsubscribing cancels', () => {
    const clock = createVirtualClock();
    let fired = 0;
    scheduleTimer(clock.scheduler, Infinity, () => (fired += 1)).unsubscribe();
    scheduleTimer(clock.scheduler, 10, () => (fired += 1)).unsubscribe();
    expect(clock.pendingTimers()).toBe(0);
    clock.advanceBy(1e6);
    expect(fired).toBe(0);
  });

  it('a negative delay or a past due time fires at once; NaN is refused', () => {
    const clock = createVirtualClock(100);
    const fired: string[] = [];
    scheduleTimer(clock.scheduler, -5, () => fired.push('negative'));
    scheduleTimerAt(clock.scheduler, 50, () => fired.push('past'));
    clock.advanceBy(0);
    expect(fired).toEqual(['negative', 'past']);
    expect(() => scheduleTimer(clock.scheduler, Number.NaN, () => undefined)).toThrow(/NaN/);
    expect(() => scheduleTimerAt(clock.scheduler, Number.NaN, () => undefined)).toThrow(/NaN/);
  });
});
