/**
 * state$ as marble diagrams on RxJS's TestScheduler. Connectors are cold observables, so the whole
 * timeline (attempts, failures, waits) is virtual. Letters: i IDLE, c CONNECTING, r READY,
 * t TRANSIENT_FAILURE, s SHUTDOWN.
 */
import { map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  type ConnectionSnapshot,
  ConnectionManager,
  type ConnectionManagerOptions,
  grpcBackoff,
} from '../../src/index.js';

const LETTER = { IDLE: 'i', CONNECTING: 'c', READY: 'r', TRANSIENT_FAILURE: 't', SHUTDOWN: 's' } as const;
const letters = (state$: Observable<ConnectionSnapshot>) => state$.pipe(map((s) => LETTER[s.state]));
const values = { i: 'i', c: 'c', r: 'r', t: 't', s: 's' };

function scheduler() {
  return new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
}

/** What the app calls on the manager, by virtual ms: `{ 500: 'pause', 2000: 'resume' }`. */
type Calls = Readonly<Record<number, 'pause' | 'resume' | 'resetBackoff' | 'shutdown'>>;

/**
 * A manager on the test scheduler that receives `calls` and shuts itself down at 60 virtual s: a
 * manager never stops retrying by itself, and TestScheduler.run flushes until no timer is left.
 */
function manager(
  ts: TestScheduler,
  options: Omit<ConnectionManagerOptions<string>, 'scheduler' | 'random'>,
  calls: Calls = {},
) {
  const m = new ConnectionManager<string>({ random: () => 0.5, scheduler: ts, ...options });
  const callAt = (at: number, call: Calls[number]) => {
    ts.schedule(() => {
      m[call]();
    }, at);
  };
  for (const [at, call] of Object.entries(calls)) callAt(Number(at), call);
  callAt(60_000, 'shutdown');
  return m;
}

describe('state$ marbles', () => {
  it('replays IDLE to a subscriber and stays silent until asked to connect', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('-') });
      expectObservable(letters(m.state$), '^ 10s !').toBe('i', values);
    });
  });

  it('an attempt that fails after 5 ms waits until 1 s after its start, then 1.6 s after the next start', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('5ms #') });
      m.connect();
      expectObservable(letters(m.state$), '^ 3s !').toBe('c 4ms t 994ms c 4ms t 1594ms c 4ms t', values);
    });
  });

  it('an attempt that establishes is READY; a loss after minUptime reconnects at once with a reset backoff', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('10ms a 6s #', { a: 'conn' }), minUptime: 5000 });
      m.connect();
      // READY at 10 ms, lost at 6.011 s: TRANSIENT_FAILURE and, the backoff being reset, CONNECTING at once.
      expectObservable(letters(m.state$), '^ 6100ms !').toBe('c 9ms r 6000ms (tc) 6ms r', values);
    });
  });

  it('a cut attempt (black hole) is followed at once by the next one', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, {
        connector: () => cold('-'),
        minConnectTimeout: 300,
        backoff: grpcBackoff({ initialBackoff: 100 }),
      });
      m.connect();
      expectObservable(letters(m.state$), '^ 1s !').toBe('c 299ms (tc) 296ms (tc) 296ms (tc)', values);
    });
  });

  it('emits SHUTDOWN and completes; unsubscribes the attempt', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const attempt = cold('-');
      const m = manager(ts, { connector: () => attempt }, { 50: 'shutdown' });
      m.connect();
      expectObservable(letters(m.state$)).toBe('c 49ms (s|)', values);
      expectSubscriptions(attempt.subscriptions).toBe('^ 49ms !');
    });
  });

  it('resetBackoff during TRANSIENT_FAILURE connects at once', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('1ms #') }, { 100: 'resetBackoff' });
      m.connect();
      expectObservable(letters(m.state$), '^ 200ms !').toBe('c t 98ms c t', values);
    });
  });

  it('pause() holds a wait in IDLE; resume() attempts at once with a fresh backoff', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('5ms #') }, { 500: 'pause', 2000: 'resume' });
      m.connect();
      // Failed at 5 ms, paused at 500 ms (no attempt at 1 s), resumed at 2 s: a fresh first wait of 1 s.
      expectObservable(letters(m.state$), '^ 3100ms !').toBe('c 4ms t 494ms i 1499ms c 4ms t 994ms c 4ms t', values);
    });
  });

  it('maxRetries: 2 gives up when the third attempt fails', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const m = manager(ts, { connector: () => cold('5ms #'), maxRetries: 2 });
      m.connect();
      expectObservable(letters(m.state$), '^ 10s !').toBe('c 4ms t 994ms c 4ms t 1594ms c 4ms (s|)', values);
    });
  });

  it('cannot be pushed into: state$ exposes no next()', () => {
    const ts = scheduler();
    const m = manager(ts, { connector: () => ts.createColdObservable('-') });
    expect('next' in m.state$).toBe(false);
  });
});
