/** The runner: state$, getters, waitForStateChange, traces and the connector contract. */
import {
  NEVER,
  Observable,
  type SchedulerAction,
  type SchedulerLike,
  Subscription,
  VirtualTimeScheduler,
  map,
  timer,
} from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  ConnectionManager,
  type TraceEntry,
  grpcBackoff,
  isConnectionClosedError,
  isPermanentError,
  isShutdownError,
  permanent,
} from '../../src/index.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';
import { harness } from '../support/harness.js';

/** The key rxjs reads interop Observables from. */
const symbolObservableKey = (Symbol as { readonly observable?: symbol }).observable ?? '@@observable';

describe('state$', () => {
  it('replays the current snapshot and emits only on change', () => {
    const h = harness();
    h.manager.connect();
    h.manager.connect(); // no-op
    h.manager.resetBackoff(); // CONNECTING: same cut time, no new snapshot
    const seen: string[] = [];
    h.manager.state$.subscribe((s) => seen.push(s.state));
    expect(seen).toEqual(['CONNECTING']);
    expect(h.states()).toEqual(['IDLE', 'CONNECTING']);
    h.manager.shutdown();
  });

  it('snapshots carry the time of the next attempt for a countdown', () => {
    const h = harness();
    h.manager.connect();
    h.clock.advanceBy(200);
    h.fake.last?.fail(new Error('refused'));
    expect(h.manager.snapshot).toEqual({
      state: 'TRANSIENT_FAILURE',
      since: 200,
      attempt: 1,
      lastError: new Error('refused'),
      nextAttemptAt: 1000,
    });
    h.manager.shutdown();
  });

  it('emits after the state is updated: a subscriber reading the getter sees the emitted state', () => {
    const h = harness();
    const mismatches: string[] = [];
    h.manager.state$.subscribe((s) => {
      if (h.manager.snapshot !== s) mismatches.push(s.state);
    });
    h.manager.connect();
    h.fake.last?.establish('c');
    h.manager.shutdown();
    expect(mismatches).toEqual([]);
  });

  it('a subscriber that reacts to a state by calling the manager sees a consistent sequence', () => {
    const h = harness();
    h.manager.state$.subscribe((s) => {
      if (s.state === 'READY') h.manager.shutdown();
    });
    h.manager.connect();
    h.fake.last?.establish('c');
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'SHUTDOWN']);
    expect(h.fake.inFlight()).toBe(0);
  });
});

describe('getState(tryToConnect)', () => {
  it('returns the state and, from IDLE, starts connecting', () => {
    const h = harness();
    expect(h.manager.getState()).toBe('IDLE');
    expect(h.fake.attempts).toHaveLength(0);
    expect(h.manager.getState(true)).toBe('IDLE');
    expect(h.manager.getState()).toBe('CONNECTING');
    h.manager.shutdown();
  });
});

describe('wake', () => {
  it('ends a long wait at once, leaves a short one, and traces both', () => {
    const trace: TraceEntry[] = [];
    const h = harness({ trace: (entry) => trace.push(entry) });
    h.manager.connect();
    h.fake.last?.fail(new Error('refused')); // wait until 1000
    h.manager.wake({ ifWaitExceeds: 1000 });
    expect(h.manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    expect(trace.at(-1)).toMatchObject({ event: 'wake', from: 'TRANSIENT_FAILURE', to: 'TRANSIENT_FAILURE' });
    expect(trace.at(-1)?.detail).toMatch(/^ignored: wake: (\d+ ms|1 s) of the wait left, not over 1 s/);
    h.manager.wake();
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
    expect(h.starts).toEqual([0, 0]);
    h.manager.shutdown();
  });

  it('rejects bad options naming the option and the value', () => {
    const h = harness();
    expect(() => {
      h.manager.wake({ ifWaitExceeds: -1 });
    }).toThrow(/option "ifWaitExceeds" must be a number >= 0.*got -1/);
    expect(() => {
      h.manager.wake({ ifWaitExceeds: Number.NaN });
    }).toThrow(/"ifWaitExceeds".*got NaN/);
    expect(() => {
      h.manager.wake('soon' as never);
    }).toThrow(/wake options must be an object, got "soon"/);
    h.manager.shutdown();
  });
});

describe('waitForStateChange', () => {
  it('resolves true at once when the state already differs', async () => {
    const h = harness();
    h.manager.connect();
    await expect(h.manager.waitForStateChange('IDLE')).resolves.toBe(true);
    h.manager.shutdown();
  });

  it('resolves true on the next change and leaves no timer behind', async () => {
    const h = harness();
    const wait = h.manager.waitForStateChange('IDLE', { timeout: 5000 });
    expect(h.clock.pendingTimers()).toBe(1);
    h.manager.connect();
    await expect(wait).resolves.toBe(true);
    h.manager.shutdown();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('resolves false at the deadline (virtual time)', async () => {
    const h = harness();
    const wait = h.manager.waitForStateChange('IDLE', { deadline: 3000 });
    h.clock.advanceTo(2999);
    let settled = false;
    void wait.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    h.clock.advanceTo(3000);
    await expect(wait).resolves.toBe(false);
  });

  it('rejects with the signal reason when aborted, and cleans up', async () => {
    const h = harness();
    const controller = new AbortController();
    const wait = h.manager.waitForStateChange('IDLE', { signal: controller.signal, timeout: 10_000 });
    controller.abort(new Error('gave up'));
    await expect(wait).rejects.toThrow('gave up');
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('rejects at once for an already aborted signal', async () => {
    const h = harness();
    await expect(
      h.manager.waitForStateChange('IDLE', { signal: AbortSignal.abort(new Error('early')) }),
    ).rejects.toThrow('early');
  });

  it('resolves false at once when waiting on SHUTDOWN in SHUTDOWN (it can never change)', async () => {
    const h = harness();
    h.manager.shutdown();
    await expect(h.manager.waitForStateChange('SHUTDOWN')).resolves.toBe(false);
  });

  it('resolves true when the manager shuts down during the wait', async () => {
    const h = harness();
    const wait = h.manager.waitForStateChange('IDLE');
    h.manager.shutdown();
    await expect(wait).resolves.toBe(true);
  });

  it('validates its options', () => {
    const h = harness();
    expect(() => h.manager.waitForStateChange('IDLE', { timeout: -1 })).toThrow(/"timeout".*got -1/);
    expect(() => h.manager.waitForStateChange('IDLE', { deadline: NaN })).toThrow(/"deadline".*got NaN/);
  });
});

describe('connector contract', () => {
  it('a connector that does not return an Observable stops the manager with a clear error', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager({
      connector: (() => Promise.resolve('c')) as never,
      scheduler: clock.scheduler,
    });
    manager.connect();
    expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(String((manager.snapshot.lastError as Error).cause)).toMatch(
      /must return an Observable \(RxJS, or an object with Symbol.observable\), got /,
    );
  });

  it.each<[string, () => unknown]>([
    ['a Promise', () => Promise.resolve('c')],
    [
      'an object with lift and subscribe (not an Observable)',
      () => ({ lift: () => undefined, subscribe: () => undefined }),
    ],
    ['undefined', () => undefined],
    ['an interop object whose Symbol.observable returns no subscribe', () => ({ [symbolObservableKey]: () => ({}) })],
  ])('a connector that returns %s stops the manager at the first attempt, every time', (_what, connector) => {
    for (let run = 0; run < 3; run += 1) {
      const clock = createVirtualClock();
      const manager = new ConnectionManager({ connector: connector as never, scheduler: clock.scheduler });
      manager.connect();
      expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure', attempt: 1 });
      expect(isPermanentError(manager.snapshot.lastError)).toBe(true);
      expect((manager.snapshot.lastError as Error).cause).toBeInstanceOf(TypeError);
      expect(clock.pendingTimers()).toBe(0);
    }
  });

  it('an interop Observable (Symbol.observable, from another library) is adopted as rxjs from() adopts it', () => {
    const clock = createVirtualClock();
    const foreign = {
      [symbolObservableKey]() {
        return {
          subscribe(observer: { next: (value: string) => void }) {
            observer.next('foreign connection');
            return { unsubscribe: () => undefined };
          },
        };
      },
    };
    const manager = new ConnectionManager({ connector: () => foreign as never, scheduler: clock.scheduler });
    manager.connect();
    expect(manager.snapshot).toMatchObject({ state: 'READY', connection: 'foreign connection' });
    manager.shutdown();
  });

  it.each<[string, () => unknown]>([
    [
      'ReferenceError',
      () => {
        throw new ReferenceError('WebSocket is not defined');
      },
    ],
    [
      'SyntaxError from the Observable while subscribing',
      () =>
        new Observable(() => {
          throw new SyntaxError('bad URL');
        }),
    ],
    [
      'TypeError',
      () => {
        throw new TypeError('Invalid URL');
      },
    ],
    [
      'RangeError',
      () => {
        throw new RangeError('port should be >= 0 and < 65536');
      },
    ],
  ])(
    'a %s while the attempt starts is a programming error: the manager stops instead of retrying',
    (_what, connector) => {
      const clock = createVirtualClock();
      const manager = new ConnectionManager({ connector: connector as never, scheduler: clock.scheduler });
      manager.connect();
      expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure', attempt: 1 });
      expect((manager.snapshot.lastError as Error).message).toMatch(/threw \w+Error while starting an attempt/);
      expect(clock.pendingTimers()).toBe(0);
    },
  );

  it('the same kinds of error arriving after the start (fetch rejecting with a TypeError) stay transient', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager({
      connector: () =>
        timer(10, clock.scheduler).pipe(
          map(() => {
            throw new TypeError('fetch failed');
          }),
        ),
      scheduler: clock.scheduler,
    });
    manager.connect();
    clock.advanceBy(10);
    expect(manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: new TypeError('fetch failed') });
    manager.shutdown();
  });

  it('a connector that throws synchronously counts as a failed attempt', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager({
      connector: () => {
        throw new Error('EMFILE');
      },
      scheduler: clock.scheduler,
    });
    manager.connect();
    expect(manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: new Error('EMFILE') });
    manager.shutdown();
  });

  it('a connector that completes before establishing is a failure with ConnectionClosedError', () => {
    const h = harness();
    h.manager.connect();
    h.fake.last?.close();
    expect(isConnectionClosedError(h.manager.snapshot.lastError)).toBe(true);
    h.manager.shutdown();
  });

  it('later emissions of the same attempt are ignored; the first is the connection', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager<string>({
      connector: () =>
        new Observable<string>((s) => {
          s.next('first');
          s.next('second');
        }),
      scheduler: clock.scheduler,
    });
    manager.connect();
    expect(manager.snapshot).toMatchObject({ state: 'READY', connection: 'first' });
    manager.shutdown();
  });

  it('idle() aborts the attempt with a ShutdownError reason and keeps the backoff', () => {
    const h = harness();
    h.manager.connect();
    const attempt = h.fake.last;
    h.manager.idle();
    expect(attempt?.torndown).toBe(true);
    expect(isShutdownError(attempt?.context.signal.reason)).toBe(true);
    expect(h.manager.snapshot).toMatchObject({ state: 'IDLE', attempt: 1 });
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('a permanent failure of a READY connection shuts down and says why', () => {
    const h = harness();
    h.manager.connect();
    h.fake.last?.establish('c');
    const error = permanent(new Error('4403 forbidden'));
    h.fake.last?.fail(error);
    expect(h.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure', lastError: error });
    expect(h.completed()).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

describe('trace', () => {
  it('traces every transition and every ignored event', () => {
    const entries: TraceEntry[] = [];
    const clock = createVirtualClock();
    const fake = createFakeConnector((a) => {
      a.fail(new Error('refused'));
    });
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: clock.scheduler,
      random: () => 0.5,
      trace: (e) => entries.push(e),
    });
    manager.connect();
    manager.connect();
    manager.shutdown();
    expect(entries.map((e) => `${e.from} -> ${e.to} (${e.event})`)).toEqual([
      'IDLE -> CONNECTING (connect)',
      'CONNECTING -> TRANSIENT_FAILURE (ended)',
      'TRANSIENT_FAILURE -> TRANSIENT_FAILURE (connect)',
      'TRANSIENT_FAILURE -> SHUTDOWN (shutdown)',
    ]);
    expect(entries[1]?.detail).toBe('attempt 1 failed; next attempt in 1 s');
    expect(entries[2]?.detail).toBe('ignored: connect in TRANSIENT_FAILURE: connect() applies only in IDLE');
  });
});

describe('disposal', () => {
  it('Symbol.dispose shuts the manager down', () => {
    const h = harness();
    h.manager.connect();
    h.manager[Symbol.dispose]();
    expect(h.manager.snapshot.state).toBe('SHUTDOWN');
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

describe('user code that throws', () => {
  /** Collects errors rethrown asynchronously (queueMicrotask) instead of letting them crash the run. */
  async function uncaught(run: () => void): Promise<unknown[]> {
    const errors: unknown[] = [];
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const collect = (error: unknown) => errors.push(error);
    process.on('uncaughtException', collect);
    try {
      run();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', collect);
      for (const l of listeners) process.on('uncaughtException', l);
    }
    return errors;
  }

  it('a throwing trace callback neither breaks a transition nor is swallowed', async () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: clock.scheduler,
      trace: () => {
        throw new Error('trace failed');
      },
    });
    const seen: string[] = [];
    manager.state$.subscribe((s) => seen.push(s.state));
    const errors = await uncaught(() => {
      manager.connect();
      manager.shutdown();
    });
    expect(seen).toEqual(['IDLE', 'CONNECTING', 'SHUTDOWN']);
    expect(errors.map(String)).toEqual(['Error: trace failed', 'Error: trace failed']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a connector whose teardown throws still gets its attempt aborted and the manager shut down', async () => {
    const clock = createVirtualClock();
    let signal: AbortSignal | undefined;
    const manager = new ConnectionManager({
      connector: (ctx) =>
        new Observable<never>(() => {
          signal = ctx.signal;
          return () => {
            throw new Error('teardown failed');
          };
        }),
      scheduler: clock.scheduler,
    });
    manager.connect();
    const errors = await uncaught(() => {
      manager.shutdown();
    });
    expect(manager.snapshot.state).toBe('SHUTDOWN');
    expect(signal?.aborted).toBe(true);
    expect(errors).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('timers that fire early', () => {
  it('re-arms for the rest: no cut and no attempt before its time by the scheduler clock', () => {
    // A scheduler whose longer timers fire 1 ms early by its own clock, as host timers sometimes do.
    // Like RxJS's schedulers, it calls the work with the action as `this` and the state it was given.
    let now = 0;
    interface Entry {
      fireAt: number;
      work: () => void;
      cancelled: boolean;
    }
    const due: Entry[] = [];
    const fireAt = (delay: number) => now + delay - (delay >= 2 ? 1 : 0);
    const early = {
      now: () => now,
      schedule(work: (this: SchedulerAction<unknown>, state?: unknown) => void, delay = 0, state?: unknown) {
        let entry: Entry = { fireAt: 0, work: () => undefined, cancelled: false };
        const action = Object.assign(
          new Subscription(() => {
            entry.cancelled = true;
          }),
          {
            schedule(nextState?: unknown, nextDelay = 0) {
              entry.cancelled = true;
              entry = {
                fireAt: fireAt(nextDelay),
                work: () => {
                  work.call(action, nextState);
                },
                cancelled: false,
              };
              due.push(entry);
              return action;
            },
          },
        ) as SchedulerAction<unknown>;
        return action.schedule(state, delay);
      },
    } satisfies SchedulerLike;
    const runDue = (until: number) => {
      for (;;) {
        const next = due.filter((d) => !d.cancelled && d.fireAt <= until).sort((a, b) => a.fireAt - b.fireAt)[0];
        if (next === undefined) break;
        next.cancelled = true;
        now = Math.max(now, next.fireAt);
        next.work();
      }
      now = until;
    };
    const fake = createFakeConnector();
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: early,
      minConnectTimeout: 300,
      backoff: grpcBackoff({ initialBackoff: 100 }),
    });
    manager.connect();
    runDue(299);
    expect(manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
    runDue(300);
    // Cut at 300 ms exactly; the next attempt follows at once (its deadline, 100 ms, has passed).
    expect(fake.attempts[0]?.torndown).toBe(true);
    expect(manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 2, since: 300 });
    manager.shutdown();
  });
});

describe('timers on virtual time', () => {
  /** How many actions the pending one keeps alive through its parents (rxjs's `_parentage`, read white-box). */
  const ancestors = (action: unknown): number => {
    let count = 0;
    let parent = (action as { _parentage?: unknown })._parentage;
    while (parent !== null && parent !== undefined) {
      count += 1;
      const next: unknown = Array.isArray(parent) ? parent[0] : parent;
      parent = (next as { _parentage?: unknown })._parentage;
    }
    return count;
  };

  it.each<[string, () => { scheduler: VirtualTimeScheduler; advanceTo: (ms: number) => void }]>([
    [
      'a stock VirtualTimeScheduler',
      () => {
        const scheduler = new VirtualTimeScheduler();
        return {
          scheduler,
          advanceTo: (ms) => {
            scheduler.maxFrames = ms;
            scheduler.flush();
          },
        };
      },
    ],
    ['createVirtualClock()', () => createVirtualClock()],
  ])('on %s, 300 attempts leave one pending timer with no chain of old ones behind it', (_name, make) => {
    const { scheduler, advanceTo } = make();
    // Each attempt is cut at its deadline, and the deadline's timer is re-armed for the wait from inside
    // its own work: the reschedule rxjs's virtual time answers with a new action.
    const manager = new ConnectionManager({
      connector: () => NEVER,
      scheduler,
      minConnectTimeout: 50,
      backoff: grpcBackoff({ initialBackoff: 100, maxBackoff: 100, jitter: 0 }),
    });
    manager.connect();
    advanceTo(299 * 100 + 25);
    expect(manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 300 });
    const pending = (scheduler.actions as unknown as { active?: boolean }[]).filter((a) => a.active !== false);
    expect(pending).toHaveLength(1);
    expect(ancestors(pending[0])).toBe(0);
    manager.shutdown();
  });
});
