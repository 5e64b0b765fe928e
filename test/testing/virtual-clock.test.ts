/**
 * redialer/testing's virtual clock: timer order (the same as RxJS's stock VirtualTimeScheduler, which
 * the storm simulator relies on too), the async forms that let promise callbacks run between timers,
 * the cap on timer firings, and the docs/retry.md snippet run as written.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Observable, VirtualTimeScheduler } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionManager, constantBackoff } from '../../src/index.js';
import { retry } from '../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { seededRandom } from '../../src/testing/seeded-random.js';
import { importsFromSource } from '../support/source-entry.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

function order(scheduler: VirtualTimeScheduler, flush: () => void): string[] {
  const random = seededRandom(3);
  const log: string[] = [];
  const cancelled: { unsubscribe(): void }[] = [];
  for (let i = 0; i < 200; i++) {
    const delay = Math.floor(random() * 20);
    const sub = scheduler.schedule(() => {
      log.push(`${String(i)}@${String(scheduler.now())}`);
      if (i % 7 === 0)
        scheduler.schedule(() => log.push(`${String(i)}'@${String(scheduler.now())}`), Math.floor(random() * 5));
    }, delay);
    if (i % 5 === 0) cancelled.push(sub);
  }
  for (const sub of cancelled) sub.unsubscribe();
  flush();
  return log;
}

/** An operation that fails `failures` times (a rejected promise, as a real request would), then succeeds. */
function flaky(clock: { now(): number }, failures: number): { op: () => Promise<string>; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    op: async () => {
      calls.push(clock.now());
      await Promise.resolve(); // a real request settles later
      if (calls.length <= failures) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
      return 'ok';
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('the virtual clock', () => {
  it('runs timers in the same order as the stock VirtualTimeScheduler (by due time, then by creation)', () => {
    const stock = new VirtualTimeScheduler();
    const clock = createVirtualClock();
    const expected = order(stock, () => {
      stock.flush();
    });
    expect(expected.length).toBeGreaterThan(150);
    expect(
      order(clock.scheduler, () => {
        clock.advanceTo(1000);
      }),
    ).toEqual(expected);
  });

  it('advanceBy does not see a retry armed after a rejected promise; advanceByAsync does', async () => {
    const sync = createVirtualClock();
    const a = flaky(sync, 1);
    const first = retry(a.op, { scheduler: sync.scheduler, random: () => 0.5 });
    sync.advanceBy(1000);
    expect(a.calls).toEqual([0]); // the attempt's rejection had not been handled: no timer yet
    expect(sync.pendingTimers()).toBe(0);
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
    };
    await settle();
    sync.advanceBy(1000); // the retry is armed now, 500 ms from the handling (at 1000 ms)
    await settle(); // and the attempt starts after the sleep's promise has resolved: too late, at 2000 ms
    expect(a.calls).toEqual([0, 2000]);
    await expect(first).resolves.toBe('ok');

    const clock = createVirtualClock();
    const b = flaky(clock, 2);
    const second = retry(b.op, { scheduler: clock.scheduler, random: () => 0.5 });
    await clock.advanceByAsync(1000);
    expect(b.calls).toEqual([0, 500]);
    expect(clock.now()).toBe(1000);
    await clock.advanceToAsync(1499);
    expect(b.calls).toEqual([0, 500]);
    await clock.advanceToAsync(1500);
    expect(b.calls).toEqual([0, 500, 1500]);
    await expect(second).resolves.toBe('ok');
  });

  it('runAllAsync runs until no timer is left and returns the time of the last one', async () => {
    const clock = createVirtualClock(10_000);
    const f = flaky(clock, 2);
    const result = retry(f.op, { scheduler: clock.scheduler, random: () => 0.5 });
    expect(await clock.runAllAsync()).toBe(11_500);
    expect(f.calls).toEqual([10_000, 10_500, 11_500]);
    await expect(result).resolves.toBe('ok');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps working when the test installs fake timers after importing it', async () => {
    vi.useFakeTimers();
    const clock = createVirtualClock();
    const f = flaky(clock, 1);
    const result = retry(f.op, { scheduler: clock.scheduler, random: () => 0.5 });
    await clock.advanceByAsync(600);
    expect(f.calls).toEqual([0, 500]);
    await expect(result).resolves.toBe('ok');
  });

  it('a timer that re-arms itself with no delay fails the call with a clear error instead of hanging', async () => {
    const clock = createVirtualClock(0, { maxTimerFirings: 1000 });
    const m = new ConnectionManager({
      scheduler: clock.scheduler,
      backoff: constantBackoff(0),
      minUptime: 0,
      minConnectTimeout: 0,
      // Without the core's floor on attempt starts (turned off explicitly), this is a hot loop.
      attemptSpacing: { interval: 0 },
      connector: () =>
        new Observable<never>((s) => {
          s.error(new Error('refused'));
        }),
    });
    m.connect();
    expect(() => {
      clock.advanceBy(10);
    }).toThrow(
      /the virtual clock fired 1000 timers in one advanceBy\(\) call and stopped at 0 ms of virtual time with 1 still pending \(option "maxTimerFirings" is 1000\)/,
    );
    await expect(clock.runAllAsync()).rejects.toThrow(/in one runAllAsync\(\) call/);
    m.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    // The default cap is 100,000 per call; Infinity lifts it.
    const unlimited = createVirtualClock(0, { maxTimerFirings: Infinity });
    let n = 0;
    unlimited.scheduler.schedule(function tick(this: { schedule(state?: unknown, delay?: number): unknown }) {
      if (++n < 150_000) this.schedule(undefined, 0);
    });
    unlimited.advanceBy(0);
    expect(n).toBe(150_000);
  });

  it('rejects bad arguments and overlapping calls, naming them', async () => {
    expect(() => createVirtualClock(0, { maxTimerFirings: 0 })).toThrow(
      /option "maxTimerFirings" must be a number >= 1, got 0/,
    );
    const clock = createVirtualClock();
    expect(() => {
      clock.advanceBy(-1);
    }).toThrow(/advanceBy\(\) needs a duration >= 0, got -1/);
    expect(() => {
      clock.advanceTo(Number.NaN);
    }).toThrow(/advanceTo\(\) needs a number, got NaN/);
    await expect(clock.advanceByAsync(Number.NaN)).rejects.toThrow(RangeError);
    clock.scheduler.schedule(() => undefined, 10);
    const running = clock.advanceByAsync(100);
    expect(() => {
      clock.advanceBy(1);
    }).toThrow(/advanceBy\(\) was called while advanceByAsync\(\) is still running; await it first/);
    await running;
    expect(clock.now()).toBe(100);
  });
});

describe('docs/retry.md, "Testing code that retries"', () => {
  it('runs as written and prints what its comments say', async () => {
    const doc = await readFile(join(root, 'docs/retry.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Testing code that retries'));
    const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(snippet).toBeDefined();
    const dir = join(root, 'test-results/snippets');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'retry-testing.ts');
    await writeFile(file, importsFromSource(snippet!, '../../'));
    const printed: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(structuredClone(args));
    });
    await import(file);
    expect(printed).toEqual([[[0, 500]], [[0, 500, 1500], 'order 42']]);
  });
});
