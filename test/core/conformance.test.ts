/**
 * The conformance suite of the protocol page ("What conformance tests must show"), one block per item,
 * on virtual time.
 */
import { describe, expect, it } from 'vitest';
import {
  ConnectionManager,
  isConnectTimeoutError,
  isRetryAfterError,
  isShutdownError,
  retryAfter,
} from '../../src/index.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';
import { harness, nominalWait } from '../support/harness.js';
import { seededRandom } from '../support/seeded-random.js';

const failAtOnce = (a: { fail: () => void }) => {
  a.fail();
};

/** A manager whose first attempt fails `ms` after its start. */
function firstFailedAfter(ms: number) {
  const h = harness();
  h.manager.connect();
  h.clock.advanceBy(ms);
  h.fake.last?.fail();
  return h;
}

/** A manager whose attempts wait for the test: the first two failed, attempt 3 in flight since 2600 ms. */
function atThirdAttempt() {
  const h = harness({ minConnectTimeout: 0 });
  h.manager.connect();
  h.fake.last?.fail();
  h.clock.advanceTo(1000);
  h.fake.last?.fail();
  h.clock.advanceTo(2600);
  return h;
}

// The protocol page's table, in seconds: [n, nominal, low, high]. Rounded to the millisecond there.
const TABLE: readonly (readonly [number, number, number, number])[] = [
  [1, 1.0, 1.0, 1.0],
  [2, 1.6, 1.28, 1.92],
  [3, 2.56, 2.048, 3.072],
  [4, 4.096, 3.277, 4.915],
  [5, 6.554, 5.243, 7.864],
  [6, 10.486, 8.389, 12.583],
  [7, 16.777, 13.422, 20.133],
  [8, 26.844, 21.475, 32.212],
  [9, 42.95, 34.36, 51.54],
  [10, 68.719, 54.976, 82.463],
  [11, 109.951, 87.961, 131.941],
  [12, 120, 96, 144],
  [13, 120, 96, 144],
  [14, 120, 96, 144],
];

describe('1. the schedule table, attempts failing at once', () => {
  it.each([
    ['0 (low edge)', 0, 2],
    ['0.5 (nominal)', 0.5, 1],
    ['1 (high edge)', 1, 3],
  ] as const)('random pinned at %s matches the table', (_label, r, column) => {
    const h = harness({ random: () => r }, failAtOnce);
    h.manager.connect();
    h.clock.advanceTo(1_500_000);
    const waits = h.waits();
    for (const row of TABLE) {
      const [n] = row;
      const expected = n === 1 ? 1 : row[column];
      expect(waits[n - 1], `wait ${String(n)}`).toBeCloseTo(expected, 2);
    }
    h.manager.shutdown();
  });

  it('gives the exact nominal values at random = 0.5, and the nominal start times', () => {
    const h = harness({}, failAtOnce);
    h.manager.connect();
    h.clock.advanceTo(500_000);
    for (let n = 1; n <= 12; n += 1) {
      expect(h.waits()[n - 1]).toBeCloseTo(nominalWait(n) / 1000, 9);
    }
    const starts = h.starts.slice(0, 11).map((t) => Math.round(t / 10) / 100);
    expect(starts).toEqual([0, 1, 2.6, 5.16, 9.26, 15.81, 26.3, 43.07, 69.92, 112.87, 181.59]);
    h.manager.shutdown();
  });

  it('waits are measured from the start of each attempt: a slow failure eats into the wait', () => {
    const h = firstFailedAfter(700);
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 1000 });
    h.clock.advanceTo(1000);
    expect(h.starts).toEqual([0, 1000]);
    h.clock.advanceBy(1500); // attempt 2 fails after 1.5 s of its 1.6 s wait
    h.fake.last?.fail();
    h.clock.advanceTo(2599);
    expect(h.starts).toHaveLength(2);
    h.clock.advanceTo(2600);
    expect(h.starts).toEqual([0, 1000, 2600]);
    h.manager.shutdown();
  });

  it('a failure after the deadline starts the next attempt at once', () => {
    const h = firstFailedAfter(5000);
    h.clock.advanceBy(0);
    expect(h.starts).toEqual([0, 5000]);
    h.manager.shutdown();
  });
});

describe('2. black-holed attempts are cut', () => {
  it('cuts attempts 1-7 at 20 s, later ones at their deadline, and starts the next at once', () => {
    const h = harness(); // nothing ever answers
    h.manager.connect();
    h.clock.advanceTo(400_000);
    const durations = h.starts.slice(1).map((t, i) => t - (h.starts[i] ?? 0));
    for (let n = 1; n <= 7; n += 1) expect(durations[n - 1], `attempt ${String(n)}`).toBe(20_000);
    for (let n = 8; n <= 11; n += 1) expect(durations[n - 1], `attempt ${String(n)}`).toBeCloseTo(nominalWait(n), 6);
    for (const [i, attempt] of h.fake.attempts.slice(0, -1).entries()) {
      expect(attempt.torndown, `attempt ${String(i + 1)} torn down`).toBe(true);
      expect(isConnectTimeoutError(attempt.context.signal.reason)).toBe(true);
    }
    expect(h.fake.inFlight()).toBe(1);
    h.manager.shutdown();
  });

  it('reports the cut as a ConnectTimeoutError on state$ and passes timeoutAt to the connector', () => {
    const h = harness({ minConnectTimeout: 3000 });
    h.manager.connect();
    expect(h.fake.last?.context.timeoutAt).toBe(3000);
    h.clock.advanceTo(3000);
    const failure = h.snapshots.find((s) => s.state === 'TRANSIENT_FAILURE');
    expect(isConnectTimeoutError(failure?.lastError)).toBe(true);
    expect(failure).toMatchObject({ since: 3000, nextAttemptAt: 3000, attempt: 1 });
    expect(h.starts).toEqual([0, 3000]);
    h.manager.shutdown();
  });

  it('with minConnectTimeout 0 the cut equals the backoff deadline', () => {
    const h = harness({ minConnectTimeout: 0 });
    h.manager.connect();
    h.clock.advanceTo(10_000);
    expect(h.starts).toEqual([0, 1000, 2600, 5160, 9256]);
    h.manager.shutdown();
  });
});

describe('3. no establishment signal, no READY and no reset', () => {
  it('a transport that connects but never signals establishment keeps the backoff growing', () => {
    // The connector's socket "connects" (it ends on its own after 300 ms) but never emits.
    const h = harness({ minConnectTimeout: 0 });
    h.manager.connect();
    for (let i = 0; i < 8; i += 1) {
      h.clock.advanceBy(300);
      h.fake.last?.close();
      h.clock.advanceTo(
        h.manager.snapshot.state === 'TRANSIENT_FAILURE' ? h.manager.snapshot.nextAttemptAt : h.clock.now(),
      );
    }
    expect(h.states()).not.toContain('READY');
    expect(h.waits().slice(0, 7)).toEqual([1, 1.6, 2.56, 4.096, 6.5536, 10.48576, 16.777216]);
  });
});

describe('4. reset after READY, growth without it', () => {
  it('after READY and a later loss, the next attempt starts now and the wait after it is the initial backoff', () => {
    const h = harness({});
    h.manager.connect();
    for (const t of [1000, 2600, 5160]) {
      h.fake.last?.fail();
      h.clock.advanceTo(t);
    }
    h.fake.last?.establish('conn');
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', connection: 'conn', attempt: 4 });
    h.clock.advanceBy(60_000);
    h.fake.last?.fail(new Error('connection reset'));
    h.clock.advanceBy(0);
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
    const lostAt = h.clock.now();
    expect(h.starts.at(-1)).toBe(lostAt);
    h.fake.last?.fail();
    h.clock.advanceTo(lostAt + 999);
    expect(h.starts.at(-1)).toBe(lostAt);
    h.clock.advanceTo(lostAt + 1000);
    expect(h.starts.at(-1)).toBe(lostAt + 1000);
    h.manager.shutdown();
  });

  it('without READY in between, waits keep growing, also across IDLE', () => {
    const h = atThirdAttempt();
    h.manager.idle();
    expect(h.manager.snapshot).toMatchObject({ state: 'IDLE', attempt: 3 });
    expect(h.fake.inFlight()).toBe(0);
    h.clock.advanceBy(50_000);
    expect(h.starts).toHaveLength(3);
    h.manager.connect();
    const t = h.clock.now();
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 4, timeoutAt: t + 4096 });
    h.fake.last?.fail();
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: t + 4096 });
    h.manager.shutdown();
  });

  it('a connection lost before minUptime counts as a failed attempt (flap guard)', () => {
    // The server accepts and drops every connection at once.
    const h = harness({}, (a) => {
      a.establish('conn');
      a.close();
    });
    h.manager.connect();
    h.clock.advanceTo(60_000);
    expect(h.waits().slice(0, 6)).toEqual([1, 1.6, 2.56, 4.096, 6.5536, 10.48576]);
    expect(h.states().filter((s) => s === 'READY').length).toBe(h.starts.length);
    h.manager.shutdown();
  });

  it('with minUptime 0 a flapping server still cannot drive more than one attempt per initial backoff', () => {
    const h = harness({ minUptime: 0 }, (a) => {
      a.establish('conn');
      a.close();
    });
    h.manager.connect();
    h.clock.advanceTo(10_000);
    expect(h.starts).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000]);
    h.manager.shutdown();
  });
});

describe('5. resetBackoff', () => {
  it('during TRANSIENT_FAILURE starts an attempt at once, and the next wait is the initial one', () => {
    const h = harness({}, failAtOnce);
    h.manager.connect();
    h.clock.advanceTo(9260); // five attempts; now waiting 6.5536 s
    expect(h.manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.clock.advanceBy(100);
    h.manager.resetBackoff();
    expect(h.starts.at(-1)).toBe(9360);
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: 10_360 });
    h.manager.shutdown();
  });

  it('never lengthens a wait, whenever it happens', () => {
    for (const offset of [0, 1, 500, 999, 1599]) {
      const h = harness({}, failAtOnce);
      h.manager.connect();
      h.clock.advanceTo(1000); // attempt 2 started and failed; waiting until 2600
      h.clock.advanceBy(offset);
      const scheduled = h.manager.snapshot.state === 'TRANSIENT_FAILURE' ? h.manager.snapshot.nextAttemptAt : NaN;
      h.manager.resetBackoff();
      expect(h.starts.at(-1)).toBeLessThanOrEqual(scheduled);
      h.manager.shutdown();
    }
  });

  it('during CONNECTING: if the attempt then fails, the next starts at once, with the initial backoff', () => {
    const h = atThirdAttempt(); // deadline 5.16 s
    h.clock.advanceBy(100);
    h.manager.resetBackoff();
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', timeoutAt: 2700 });
    h.clock.advanceBy(0);
    expect(h.starts).toEqual([0, 1000, 2600, 2700]);
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1, timeoutAt: 3700 });
    h.manager.shutdown();
  });
});

describe('6. many managers spread out', () => {
  it('1,000 managers started together spread each wait over the ±20 % band, mean within 1 % of nominal', () => {
    const clock = createVirtualClock();
    const random = seededRandom(20_261_129);
    const starts: number[][] = [];
    const managers = Array.from({ length: 1000 }, (_, i) => {
      starts.push([]);
      const fake = createFakeConnector((a) => {
        starts[i]?.push(clock.now());
        a.fail();
      });
      return new ConnectionManager({ connector: fake.connector, scheduler: clock.scheduler, random });
    });
    for (const m of managers) m.connect();
    clock.advanceTo(800_000);
    for (let n = 2; n <= 13; n += 1) {
      // Wait n runs from the start of attempt n to the start of attempt n + 1 (indices n - 1 and n).
      const waits = starts.map((s) => (s[n] ?? NaN) - (s[n - 1] ?? NaN));
      const expected = nominalWait(n);
      const low = 0.8 * expected;
      const high = 1.2 * expected;
      const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
      expect(Math.min(...waits), `wait ${String(n)} low`).toBeGreaterThanOrEqual(low - 1e-6);
      expect(Math.max(...waits), `wait ${String(n)} high`).toBeLessThanOrEqual(high + 1e-6);
      expect(Math.min(...waits), `wait ${String(n)} reaches the low edge`).toBeLessThan(low + 0.01 * expected);
      expect(Math.max(...waits), `wait ${String(n)} reaches the high edge`).toBeGreaterThan(high - 0.01 * expected);
      expect(Math.abs(mean / expected - 1), `wait ${String(n)} mean`).toBeLessThan(0.01);
    }
    // Attempt-n start times: the mean near the nominal start, and no crowd in any 10 ms window.
    const nominalStarts = [0, 1000, 2600, 5160, 9256, 15_810, 26_296, 43_074, 69_918];
    for (let n = 3; n <= nominalStarts.length; n += 1) {
      const times = starts.map((s) => s[n - 1] ?? NaN);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      expect(Math.abs(mean / (nominalStarts[n - 1] ?? 1) - 1), `start ${String(n)} mean`).toBeLessThan(0.01);
      const buckets = new Map<number, number>();
      for (const t of times) buckets.set(Math.floor(t / 10), (buckets.get(Math.floor(t / 10)) ?? 0) + 1);
      expect(Math.max(...buckets.values()), `start ${String(n)} crowd`).toBeLessThan(50);
    }
    for (const m of managers) m.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('7. SHUTDOWN is terminal', () => {
  const scenarios = [
    ['IDLE', () => undefined],
    [
      'CONNECTING',
      (h: ReturnType<typeof harness>) => {
        h.manager.connect();
      },
    ],
    [
      'READY',
      (h: ReturnType<typeof harness>) => {
        h.manager.connect();
        h.fake.last?.establish('conn');
      },
    ],
    [
      'TRANSIENT_FAILURE',
      (h: ReturnType<typeof harness>) => {
        h.manager.connect();
        h.fake.last?.fail();
      },
    ],
  ] as const;

  it.each(scenarios)('from %s: no attempt, no timer, no emission afterwards', (state, enter) => {
    const h = harness();
    enter(h);
    expect(h.manager.snapshot.state).toBe(state);
    const inFlight = h.fake.last;
    h.manager.shutdown();
    expect(h.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'shutdown' });
    expect(h.completed()).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.fake.inFlight()).toBe(0);
    if (inFlight?.torndown) expect(isShutdownError(inFlight.context.signal.reason)).toBe(true);
    const emitted = h.snapshots.length;
    const attempts = h.fake.attempts.length;
    h.manager.connect();
    h.manager.resetBackoff();
    h.manager.idle();
    h.manager.shutdown();
    h.clock.advanceBy(1_000_000);
    expect(h.snapshots).toHaveLength(emitted);
    expect(h.fake.attempts).toHaveLength(attempts);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('a late subscriber sees SHUTDOWN, then completion', () => {
    const h = harness();
    h.manager.shutdown();
    const seen: string[] = [];
    h.manager.state$.subscribe({ next: (s) => seen.push(s.state), complete: () => seen.push('complete') });
    expect(seen).toEqual(['SHUTDOWN', 'complete']);
  });
});

describe('server-directed waits (RetryAfterError)', () => {
  it('a failed attempt carrying a retry-after waits at least that long, measured from now', () => {
    const h = harness();
    h.manager.connect();
    h.clock.advanceBy(100);
    h.fake.last?.fail(retryAfter(new Error('503'), 30_000));
    // The hint, spread upwards by up to 20 % so that clients told the same wait do not return together
    // (random 0.5: +10 %).
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 33_100 });
    expect(isRetryAfterError(h.manager.snapshot.lastError)).toBe(true);
    h.clock.advanceTo(33_099);
    expect(h.starts).toHaveLength(1);
    h.clock.advanceTo(33_100);
    expect(h.starts).toEqual([0, 33_100]);
    h.manager.shutdown();
  });

  it('never shortens the backoff: a hint below the deadline changes nothing', () => {
    const h = harness();
    h.manager.connect();
    h.fake.last?.fail(retryAfter(new Error('1013'), 10));
    expect(h.manager.snapshot).toMatchObject({ nextAttemptAt: 1000 });
    h.manager.shutdown();
  });

  it('a lost READY connection with a hint waits for it even after a backoff reset', () => {
    const h = harness();
    h.manager.connect();
    h.fake.last?.establish('c');
    h.clock.advanceBy(60_000);
    h.fake.last?.fail(retryAfter(new Error('1012 service restart'), 5000));
    // 5000 ms from now, spread upwards by up to 20 % (random 0.5: +10 %).
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0, nextAttemptAt: 65_500 });
    h.manager.resetBackoff(); // "Retry now" still wins
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.manager.shutdown();
  });

  it('validates the delay', () => {
    expect(() => retryAfter(new Error('x'), NaN)).toThrow(/"delay".*got NaN/);
    expect(retryAfter(new Error('x'), Infinity).delay).toBe(2 ** 31 - 1);
  });
});
