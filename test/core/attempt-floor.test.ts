/**
 * The floor on the spacing of attempt starts (core, on virtual time): no backoff setting, server hint
 * or call pattern drives a hot loop against a server that keeps failing, and 0 ms still means "at once"
 * for the first few retries.
 */
import { NEVER, Observable, type Subscriber } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { busiestWindow } from '../support/busiest-window.js';
import {
  type BackoffPolicy,
  ConnectionManager,
  type ConnectionManagerOptions,
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
  retryAfter,
} from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, maxStartsIn } from '../../src/core/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { FakeEnvironment, fakeWebSocketClass } from '../support/websocket/fake-websocket.js';

/** A safety stop, so that a hot loop (before the floor existed) fails the test instead of hanging it. */
const RUNAWAY = 5000;

/**
 * Attempt start times over `ms` of virtual time against a server that does `answer` with every
 * attempt (until RUNAWAY attempts, where the manager is shut down), and the timers left after shutdown().
 */
function startsAgainst<T>(
  answer: (subscriber: Subscriber<T>) => void,
  options: Partial<ConnectionManagerOptions<T>>,
  ms: number,
): { starts: number[]; pendingTimers: number } {
  const clock = createVirtualClock();
  const starts: number[] = [];
  const manager: ConnectionManager<T> = new ConnectionManager<T>({
    connector: () =>
      new Observable<T>((subscriber) => {
        starts.push(clock.now());
        if (starts.length >= RUNAWAY) manager.shutdown();
        else answer(subscriber);
      }),
    scheduler: clock.scheduler,
    ...options,
  });
  manager.connect();
  clock.advanceBy(ms);
  manager.shutdown();
  return { starts, pendingTimers: clock.pendingTimers() };
}

/** Attempt start times against a server that refuses at once, over `ms` of virtual time. */
function refusedStarts(options: Partial<ConnectionManagerOptions<never>>, ms = 10_000): number[] {
  const refuse = (subscriber: Subscriber<never>) => {
    subscriber.error(new Error('ECONNREFUSED'));
  };
  const { starts, pendingTimers } = startsAgainst(refuse, { minConnectTimeout: 0, random: () => 0.5, ...options }, ms);
  expect(pendingTimers).toBe(0);
  return starts;
}

const zeroPolicies: [string, BackoffPolicy][] = [
  ['grpcBackoff({ initialBackoff: 0 })', grpcBackoff({ initialBackoff: 0 })],
  [
    'grpcBackoff({ initialBackoff: 0, maxBackoff: 0, jitter: 0 })',
    grpcBackoff({ initialBackoff: 0, maxBackoff: 0, jitter: 0 }),
  ],
  ['exponentialBackoff({ initialDelay: 0 })', exponentialBackoff({ initialDelay: 0 })],
  [
    'exponentialBackoff({ initialDelay: 0, jitter: decorrelated })',
    exponentialBackoff({ initialDelay: 0, jitter: 'decorrelated' }),
  ],
  ['constantBackoff(0)', constantBackoff(0)],
];

describe('the floor on attempt starts', () => {
  it('documents its bound: 5 back to back, then one per 100 ms; at most 105 in any 10 s', () => {
    expect(DEFAULT_ATTEMPT_SPACING).toEqual({ burst: 5, interval: 100 });
    expect(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000)).toBe(105);
  });

  it.each(zeroPolicies)('%s against a refusing server: at most 105 starts in any 10 s window', (_name, backoff) => {
    const starts = refusedStarts({ backoff }, 30_000);
    expect(starts.length).toBeLessThan(RUNAWAY);
    expect(busiestWindow(starts, 10_000)).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000));
    // 0 keeps its meaning for the first retries: five attempts at once, then one per 100 ms.
    expect(starts.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 100, 200]);
  });

  it('a server that accepts and drops at once, with minUptime 0 and a 0 ms backoff, is not hammered', () => {
    const acceptAndDrop = (subscriber: Subscriber<string>) => {
      subscriber.next('up');
      subscriber.error(new Error('dropped'));
    };
    const { starts } = startsAgainst(acceptAndDrop, { minUptime: 0, backoff: constantBackoff(0) }, 10_000);
    expect(starts.length).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000));
  });

  it('"retry now" pressed in a loop: at once while the burst lasts, then as the floor allows, never sooner', () => {
    const clock = createVirtualClock();
    const starts: number[] = [];
    const manager = new ConnectionManager({
      connector: () =>
        new Observable<never>((subscriber) => {
          starts.push(clock.now());
          subscriber.error(new Error('ECONNREFUSED'));
        }),
      scheduler: clock.scheduler,
    });
    manager.connect();
    for (let t = 0; t < 1000; t += 10) {
      clock.advanceTo(t);
      for (let i = 0; i < 50 && starts.length < RUNAWAY; i++) manager.resetBackoff();
    }
    manager.shutdown();
    expect(starts.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(starts.length).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 1000));
  });

  it('"retry now" under the floor brings the wait forward to the floor, and never pushes it back', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager({
      connector: () =>
        new Observable<never>((subscriber) => {
          subscriber.error(new Error('ECONNREFUSED'));
        }),
      scheduler: clock.scheduler,
    });
    manager.connect();
    for (let i = 0; i < 4; i++) manager.resetBackoff(); // the burst of 5 is spent at 0 ms
    const waits: number[] = [];
    const snapshots: string[] = [];
    manager.state$.subscribe((s) => snapshots.push(s.state));
    const next = (): number => (manager.snapshot.state === 'TRANSIENT_FAILURE' ? manager.snapshot.nextAttemptAt : NaN);
    waits.push(next());
    manager.resetBackoff(); // the floor allows the next start at 100 ms, sooner than the 1 s wait
    waits.push(next());
    manager.resetBackoff(); // already at the floor: nothing to bring forward, nothing emitted
    waits.push(next());
    expect(waits).toEqual([1000, 100, 100]);
    expect(snapshots).toEqual(['TRANSIENT_FAILURE', 'TRANSIENT_FAILURE']);
    manager.shutdown();
  });

  it('a server hint of 0 cannot undercut it', () => {
    const clock = createVirtualClock();
    let n = 0;
    const manager = new ConnectionManager({
      connector: () =>
        new Observable<never>((subscriber) => {
          n += 1;
          subscriber.error(retryAfter(new Error('overloaded'), 0));
        }),
      scheduler: clock.scheduler,
      backoff: constantBackoff(0),
      minConnectTimeout: 0,
    });
    manager.connect();
    clock.advanceBy(1000);
    manager.shutdown();
    expect(n).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 1000));
  });

  it('is overridable only explicitly: { interval: 0 } turns it off', () => {
    const starts = refusedStarts({ backoff: constantBackoff(0), attemptSpacing: { interval: 0 } }, 10);
    expect(starts.length).toBe(RUNAWAY);
    const tighter = refusedStarts({ backoff: constantBackoff(0), attemptSpacing: { burst: 1, interval: 1000 } });
    expect(tighter).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000]);
  });

  it('validates the option, naming it and the value', () => {
    const make = (attemptSpacing: unknown) => () => {
      new ConnectionManager({ connector: () => NEVER, attemptSpacing: attemptSpacing as never }).shutdown();
    };
    expect(make({ burst: 0 })).toThrow(/option "attemptSpacing.burst" must be an integer >= 1.*got 0/);
    expect(make({ interval: NaN })).toThrow(/option "attemptSpacing.interval".*got NaN/);
    expect(make({ interval: -1 })).toThrow(RangeError);
    expect(make(5)).toThrow(TypeError);
  });

  it('does not change a policy whose waits are already longer', () => {
    const starts = refusedStarts({ backoff: grpcBackoff({ initialBackoff: 100, jitter: 0 }) }, 1000);
    expect(starts).toEqual([0, 100, 260, 516, 925.6]);
  });

  it('ReconnectingWebSocket({ minReconnectionDelay: 0 }) gets the same floor through the core', () => {
    const clock = createVirtualClock();
    const fake = fakeWebSocketClass();
    const socket = new ReconnectingWebSocket('ws://example.test/', undefined, {
      WebSocket: fake.WebSocket,
      scheduler: clock.scheduler,
      environment: new FakeEnvironment(),
      minReconnectionDelay: 0,
      connectionTimeout: 0,
      random: () => 0.5,
    });
    const starts: number[] = [];
    for (let t = 0; t <= 10_000; t += 1) {
      clock.advanceTo(t);
      // Every socket the client opens is refused at once (a new one may open synchronously).
      while (fake.last().readyState === 0 && starts.length < RUNAWAY) {
        starts.push(clock.now());
        fake.last().fail();
      }
    }
    socket.close();
    expect(starts.length).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000));
    expect(clock.pendingTimers()).toBe(0);
  });
});
