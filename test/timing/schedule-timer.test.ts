import { type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS } from '../../src/backoff/backoff.js';
import { createVirtualClock } from '../../src/testing/virtual-clock.js';
import { scheduleTimer, scheduleTimerAt } from '../../src/timing/schedule-timer.js';

/**
 * A scheduler like Node's timers: a wait above 2^31 - 1 ms fires after 1 ms, and each timer fires
 * `early` ms before its due time by the clock
 * (waits of 100 ms and more; shorter ones are on time). Arms are recorded.
 */
function hostLikeScheduler(early = 0) {
  let now = 0;
  const pending: { at: number; run: () => void }[] = [];
  const arms: number[] = [];
  const scheduler: SchedulerLike = {
    now: () => now,
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      const action = Object.assign(new Subscription(), {
        schedule(nextState?: T, nextDelay = 0): Subscription {
          arm(nextState, nextDelay);
          return action;
        },
      }) as unknown as SchedulerAction<T>;
      const arm = (s: T | undefined, wait: number) => {
        arms.push(wait);
        const effective = wait > MAX_DELAY_MS ? 1 : wait;
        const entry = { at: now + (effective >= 100 ? effective - early : effective), run: () => { work.call(action, s); } };
        pending.push(entry);
        action.add(() => pending.splice(pending.indexOf(entry) >>> 0, 1));
      };
      arm(state, delay);
      return action;
    },
  };
  const runUntil = (time: number) => {
    for (;;) {
      pending.sort((a, b) => a.at - b.at);
      const next = pending[0];
      if (next === undefined || next.at > time) break;
      pending.shift();
      now = Math.max(now, next.at);
      next.run();
    }
    now = time;
  };
  return { scheduler, arms, runUntil, pending: () => pending.length };
}

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
