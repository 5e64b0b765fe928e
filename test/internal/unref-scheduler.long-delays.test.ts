/** unrefScheduler and timers longer than the host can arm (2^31 - 1 ms). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { unrefScheduler } from '../../src/index.js';
import { MAX_DELAY_MS } from '../../src/core/index.js';

describe('unrefScheduler', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits a delay longer than 2^31 - 1 ms in full (the host fires a longer timer after 1 ms)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldClearNativeTimers: true });
    const fired: number[] = [];
    const start = Date.now();
    const subscription = unrefScheduler.schedule(() => {
      fired.push(Date.now() - start);
    }, 3e9);
    vi.advanceTimersByTime(MAX_DELAY_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(3e9 - MAX_DELAY_MS);
    expect(fired).toEqual([3e9]);
    subscription.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an unsubscribed long wait leaves no timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const subscription = unrefScheduler.schedule(() => undefined, 5e9);
    vi.advanceTimersByTime(MAX_DELAY_MS + 10);
    subscription.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });
});
