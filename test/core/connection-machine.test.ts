/**
 * The pure transition function, table-driven: every (state, event) pair either makes a transition
 * allowed by the TRANSITIONS table or is a no-op that says why. No timers are involved.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConnectivityState,
  constantBackoff,
  isBackoffPolicyError,
  isGracefulEnd,
  isPermanentError,
  markGracefulEnd,
  permanent,
  retryAfter,
} from '../../src/index.js';
import { TRANSITIONS, isAllowedTransition } from '../../src/core/index.js';
import {
  type MachineEnv,
  type MachineEvent,
  type MachineState,
  initialState,
  transition,
} from '../../src/core/index.js';
import { machineEnv } from '../support/machine-env.js';

const env = machineEnv;

type M = MachineState<string>;
const step = (m: M, e: MachineEvent<string>, now = 0, over: Partial<MachineEnv> = {}) =>
  transition(m, e, env(now, over));

/** A machine in each state, reached through real transitions; NOT_SERVING is TRANSIENT_FAILURE on an open connection. */
function inState(state: ConnectivityState | 'NOT_SERVING'): M {
  const idle = initialState<string>(0);
  if (state === 'IDLE') return idle;
  const connecting = step(idle, { type: 'connect' }).state;
  if (state === 'CONNECTING') return connecting;
  if (state === 'READY') return step(connecting, { type: 'established', attemptId: 1, connection: 'c' }, 10).state;
  if (state === 'NOT_SERVING')
    return step(connecting, { type: 'established', attemptId: 1, connection: 'c', serving: false }, 10).state;
  if (state === 'TRANSIENT_FAILURE')
    return step(connecting, { type: 'ended', attemptId: 1, error: new Error('x'), clean: false }, 10).state;
  return step(idle, { type: 'shutdown' }).state;
}

const EVENTS: Record<string, (m: M) => MachineEvent<string>> = {
  connect: () => ({ type: 'connect' }),
  established: (m) => ({ type: 'established', attemptId: m.attemptId, connection: 'c' }),
  ended: (m) => ({ type: 'ended', attemptId: m.attemptId, error: new Error('boom'), clean: false }),
  timer: (m) => ({ type: 'timer', at: m.timerAt ?? 0 }),
  'reset-backoff': () => ({ type: 'reset-backoff' }),
  wake: () => ({ type: 'wake', ifWaitExceeds: 0 }),
  idle: () => ({ type: 'idle' }),
  pause: () => ({ type: 'pause' }),
  resume: () => ({ type: 'resume' }),
  shutdown: () => ({ type: 'shutdown' }),
  serving: (m) => ({ type: 'serving', attemptId: m.attemptId, serving: true, reason: undefined }),
  'not-serving': (m) => ({ type: 'serving', attemptId: m.attemptId, serving: false, reason: new Error('down') }),
};

// Expected target per state and event; '-' marks a no-op (same state object, no effects).
const EXPECTED: Record<ConnectivityState | 'NOT_SERVING', Record<string, ConnectivityState | '-'>> = {
  IDLE: {
    connect: 'CONNECTING',
    established: '-',
    ended: '-',
    timer: '-',
    'reset-backoff': 'IDLE',
    wake: '-',
    idle: '-',
    pause: 'IDLE',
    resume: '-',
    shutdown: 'SHUTDOWN',
    serving: '-',
    'not-serving': '-',
  },
  CONNECTING: {
    connect: '-',
    established: 'READY',
    ended: 'TRANSIENT_FAILURE',
    timer: 'TRANSIENT_FAILURE',
    'reset-backoff': 'CONNECTING',
    wake: '-',
    idle: 'IDLE',
    pause: 'CONNECTING',
    resume: '-',
    shutdown: 'SHUTDOWN',
    serving: '-',
    'not-serving': '-',
  },
  READY: {
    connect: '-',
    established: '-',
    ended: 'TRANSIENT_FAILURE',
    timer: '-',
    'reset-backoff': 'READY',
    wake: '-',
    idle: 'IDLE',
    pause: 'READY',
    resume: '-',
    shutdown: 'SHUTDOWN',
    serving: '-',
    'not-serving': 'TRANSIENT_FAILURE',
  },
  TRANSIENT_FAILURE: {
    connect: '-',
    established: '-',
    ended: '-',
    timer: 'CONNECTING',
    'reset-backoff': 'CONNECTING',
    wake: 'CONNECTING',
    idle: '-',
    pause: 'IDLE',
    resume: '-',
    shutdown: 'SHUTDOWN',
    serving: '-',
    'not-serving': '-',
  },
  // Connected to a server that reports it is not serving (health checking, gRFC A17).
  NOT_SERVING: {
    connect: '-',
    established: '-',
    ended: 'TRANSIENT_FAILURE',
    timer: '-',
    'reset-backoff': 'TRANSIENT_FAILURE',
    wake: '-',
    idle: 'IDLE',
    pause: 'TRANSIENT_FAILURE',
    resume: '-',
    shutdown: 'SHUTDOWN',
    serving: 'READY',
    'not-serving': '-',
  },
  SHUTDOWN: {
    connect: '-',
    established: '-',
    ended: '-',
    timer: '-',
    'reset-backoff': '-',
    wake: '-',
    idle: '-',
    pause: '-',
    resume: '-',
    shutdown: '-',
    serving: '-',
    'not-serving': '-',
  },
};

describe('transition table', () => {
  const rows = Object.entries(EXPECTED).flatMap(([state, events]) =>
    Object.entries(events).map(([event, to]) => [state as ConnectivityState | 'NOT_SERVING', event, to] as const),
  );

  it.each(rows)('%s + %s -> %s', (state, event, to) => {
    const m = inState(state);
    const result = step(m, EVENTS[event]!(m), 20);
    const from = m.snapshot.state;
    if (to === '-') {
      expect(result.state).toBe(m);
      expect(result.effects).toEqual([]);
      expect(result.detail).toMatch(/^ignored: /);
    } else {
      expect(result.state.snapshot.state).toBe(to);
      if (to !== from) expect(isAllowedTransition(from, to)).toBe(true);
    }
  });

  it('the handlers make exactly the transitions of the table: TRANSITIONS is neither looser nor stricter', () => {
    const made = new Set<string>();
    for (const [state, event] of rows) {
      const m = inState(state);
      const from = m.snapshot.state;
      const to = step(m, EVENTS[event]!(m), 20).state.snapshot.state;
      if (to !== from) made.add(`${from} -> ${to}`);
    }
    const allowed = Object.entries(TRANSITIONS).flatMap(([from, targets]) => targets.map((to) => `${from} -> ${to}`));
    expect([...made].sort()).toEqual(allowed.sort());
  });

  // With one addition, TRANSIENT_FAILURE -> READY, which gRFC A17 (client-side health checking) makes:
  // a connection that stayed open while its server was not serving, serving again.
  it('only lists transitions of gRPC connectivity semantics, and the one gRFC A17 adds', () => {
    expect(TRANSITIONS).toEqual({
      IDLE: ['CONNECTING', 'SHUTDOWN'],
      CONNECTING: ['READY', 'TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      READY: ['TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      TRANSIENT_FAILURE: ['CONNECTING', 'READY', 'IDLE', 'SHUTDOWN'],
      SHUTDOWN: [],
    });
  });
});

describe('effects', () => {
  it('connect from IDLE arms the cut timer and starts attempt 1', () => {
    const { state, effects } = step(initialState(0), { type: 'connect' }, 100);
    expect(effects).toEqual([
      { type: 'set-timer', at: 20_100 },
      { type: 'start-attempt', attemptId: 1, attempt: 1, timeoutAt: 20_100 },
    ]);
    expect(state).toMatchObject({ deadline: 1100, attemptStartedAt: 100, timerAt: 20_100 });
  });

  it('a cut stops the attempt with a ConnectTimeoutError and schedules the next at once', () => {
    const m = inState('CONNECTING');
    const { state, effects } = step(m, { type: 'timer', at: 20_000 }, 20_000);
    expect(effects.map((e) => e.type)).toEqual(['stop-attempt', 'set-timer']);
    expect(effects[1]).toEqual({ type: 'set-timer', at: 20_000 });
    expect(state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 20_000 });
  });

  it('shutdown from READY clears nothing it does not have, stops the connection and completes', () => {
    const m = inState('READY');
    expect(step(m, { type: 'shutdown' }).effects.map((e) => e.type)).toEqual(['stop-attempt', 'complete']);
    const t = inState('TRANSIENT_FAILURE');
    expect(step(t, { type: 'shutdown' }).effects.map((e) => e.type)).toEqual(['clear-timer', 'complete']);
  });

  it('ignores events from a stale attempt and stale timers', () => {
    const m = inState('CONNECTING');
    expect(step(m, { type: 'established', attemptId: 99, connection: 'c' }).detail).toMatch(/stale attempt/);
    expect(step(m, { type: 'timer', at: 5 }).detail).toMatch(/stale timer/);
    expect(step(m, { type: 'timer', at: 5 }, 1645).detail).toBe('ignored: stale timer, due 1.6 s ago');
  });

  it('is pure: the same inputs give equal outputs and the input is not mutated', () => {
    const m = inState('TRANSIENT_FAILURE');
    const copy = structuredClone({ ...m, backoff: undefined });
    const a = step(m, { type: 'timer', at: m.timerAt ?? 0 }, 1000);
    const b = step(m, { type: 'timer', at: m.timerAt ?? 0 }, 1000);
    expect(a).toEqual(b);
    expect(a.detail).toBe(b.detail);
    expect({ ...m, backoff: undefined }).toEqual(copy);
  });

  it('says what a transition did as of its own time, however late its detail is read', () => {
    // A runner passes one env object and moves its `now` on from event to event (as the manager does).
    const shared = { ...env(0), now: 0 };
    const described = (make: () => { readonly detail: string }, now: number): { readonly detail: string } => {
      shared.now = now;
      const t = make();
      shared.now = now + 99_999;
      return t;
    };
    const connecting = described(() => transition(initialState<string>(0), { type: 'connect' }, shared), 0);
    expect(connecting.detail).toBe('connection requested; attempt 1, next no sooner than 1 s from now, cut in 20 s');
    const m = inState('CONNECTING');
    const failed = described(
      () => transition(m, { type: 'ended', attemptId: m.attemptId, error: new Error('x'), clean: false }, shared),
      10,
    );
    expect(failed.detail).toBe('attempt 1 failed; next attempt in 990 ms');
    const ready = inState('READY');
    const lost = described(
      () =>
        transition(ready, { type: 'ended', attemptId: ready.attemptId, error: new Error('x'), clean: false }, shared),
      6010,
    );
    expect(lost.detail).toBe('connection lost after 6 s (backoff reset); next attempt now');
    const established = described(
      () => transition(m, { type: 'established', attemptId: m.attemptId, connection: 'c' }, shared),
      20,
    );
    expect(established.detail).toBe('attempt 1 established');
  });
});

describe('terminal conditions', () => {
  it('a permanent failure while CONNECTING shuts down with the error', () => {
    const error = permanent(new Error('401 unauthorized'));
    const m = inState('CONNECTING');
    const { state, effects } = step(m, { type: 'ended', attemptId: m.attemptId, error, clean: false });
    expect(state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure', lastError: error });
    expect(isPermanentError(state.snapshot.lastError)).toBe(true);
    expect(effects.at(-1)).toEqual({ type: 'complete' });
  });

  it('a backoff policy that throws shuts down with reason policy-error instead of looping', () => {
    const broken = {
      first: () => {
        throw new Error('bad policy');
      },
    };
    const { state } = step(initialState(0), { type: 'connect' }, 0, { backoff: broken });
    expect(state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
  });

  it('a NaN delay from a custom policy is a policy error, not a zero wait', () => {
    const nan = {
      first: () => ({
        delay: NaN,
        next() {
          return this;
        },
      }),
    };
    const { state } = step(initialState(0), { type: 'connect' }, 0, { backoff: nan });
    expect(state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
  });

  it.each([
    [
      'throws',
      (): unknown => {
        throw new Error('bad policy');
      },
      /the backoff policy threw: Error: bad policy/,
    ],
    ['returns NaN', (): unknown => NaN, /returned NaN as a delay/],
    ['returns Infinity', (): unknown => Infinity, /returned Infinity as a delay/],
    ['returns a string', (): unknown => '100', /returned the string "100" as a delay/],
    ['returns no delay', (): unknown => undefined, /returned undefined as a delay/],
  ] as const)(
    'a policy whose step %s stops with a BackoffPolicyError, on the first step and on a later one',
    (_label, delayOf, message) => {
      const policy = (throwAt: number) => {
        const stepAt = (n: number): { readonly delay: number; next(): unknown } => ({
          get delay() {
            return (n >= throwAt ? delayOf() : 1000) as number;
          },
          next: () => stepAt(n + 1),
        });
        return { first: () => stepAt(1) } as unknown as MachineEnv['backoff'];
      };
      const first = step(initialState(0), { type: 'connect' }, 0, { backoff: policy(1) }).state;
      expect(first.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
      expect(isBackoffPolicyError(first.snapshot.lastError)).toBe(true);
      expect((first.snapshot.lastError as Error).message).toMatch(message);
      // A later step: the attempt fails, its wait is due, and the next step is broken: no attempt starts.
      const over = { backoff: policy(2) };
      const connecting = step(initialState(0), { type: 'connect' }, 0, over).state;
      const waiting = step(connecting, { type: 'ended', attemptId: 1, error: new Error('x'), clean: false }, 5, over);
      const due = step(waiting.state, { type: 'timer', at: 1000 }, 1000, over);
      expect(due.state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
      expect(due.effects.some((e) => e.type === 'start-attempt')).toBe(false);
    },
  );

  it('clamps an infinite custom delay to the largest timer', () => {
    const { state } = step(initialState(0), { type: 'connect' }, 0, { backoff: constantBackoff(Infinity) });
    expect(state.deadline).toBe(2 ** 31 - 1);
  });
});

describe('autoReconnect: false', () => {
  it('a lost READY connection goes IDLE and waits for connect()', () => {
    const m = inState('READY');
    const { state, effects } = step(
      m,
      { type: 'ended', attemptId: m.attemptId, error: new Error('lost'), clean: false },
      10_000,
      {
        autoReconnect: false,
      },
    );
    expect(state.snapshot).toMatchObject({ state: 'IDLE', attempt: 0 });
    expect(effects).toEqual([]);
  });
});

describe('pause and resume (e.g. offline)', () => {
  const fail = (m: M, now: number, over: Partial<MachineEnv> = {}) =>
    step(m, { type: 'ended', attemptId: m.attemptId, error: new Error('refused'), clean: false }, now, over);

  it('a wait in TRANSIENT_FAILURE goes IDLE and paused at once, keeping the attempt count, error and backoff', () => {
    const t = inState('TRANSIENT_FAILURE');
    const { state, effects } = step(t, { type: 'pause' }, 50);
    expect(state.snapshot).toMatchObject({ state: 'IDLE', paused: true, attempt: 1, lastError: t.snapshot.lastError });
    expect(state.backoff).toBe(t.backoff);
    expect(effects).toEqual([{ type: 'clear-timer' }]);
  });

  it('resume starts the held attempt at once with a fresh backoff', () => {
    const parked = step(inState('TRANSIENT_FAILURE'), { type: 'pause' }, 50).state;
    const { state, effects } = step(parked, { type: 'resume' }, 70);
    expect(state.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1, since: 70 });
    expect(state.paused).toBe(false);
    expect(state.deadline).toBe(1070);
    expect(effects.map((e) => e.type)).toEqual(['set-timer', 'start-attempt']);
  });

  it('an attempt in flight carries on; if it fails, the machine holds instead of waiting', () => {
    const paused = step(inState('CONNECTING'), { type: 'pause' }, 5);
    expect(paused.effects).toEqual([]);
    expect(paused.state.snapshot.state).toBe('CONNECTING');
    const { state, effects } = fail(paused.state, 10);
    expect(state.snapshot).toMatchObject({ state: 'IDLE', paused: true, attempt: 1 });
    expect(effects).toEqual([{ type: 'clear-timer' }]);
  });

  it('offline, an open connection stays READY, its snapshot saying paused (it may be dead); resume() clears it, nothing else changes', () => {
    const ready = inState('READY');
    const paused = step(ready, { type: 'pause', offline: true }, 20);
    expect(paused.effects).toEqual([]);
    expect(paused.state.snapshot).toEqual({ ...ready.snapshot, paused: true });
    const resumed = step(paused.state, { type: 'resume' }, 30);
    expect(resumed.effects).toEqual([]);
    expect(resumed.state.snapshot).toEqual(ready.snapshot);
    expect(resumed.state.paused).toBe(false);
    expect(step(paused.state, { type: 'pause' }, 25).state.snapshot).toBe(paused.state.snapshot); // a no-op
  });

  it('a pause that is not offline (attempts held, e.g. a stream waiting for its channel) leaves the READY snapshot as it is', () => {
    const ready = inState('READY');
    const paused = step(ready, { type: 'pause' }, 20);
    expect(paused.state.snapshot).toBe(ready.snapshot);
    expect(paused.state.paused).toBe(true);
    const resumed = step(paused.state, { type: 'resume' }, 30);
    expect(resumed.state.snapshot).toBe(ready.snapshot);
    expect(resumed.state.paused).toBe(false);
  });

  it('an open connection lost while paused holds too', () => {
    const paused = step(inState('READY'), { type: 'pause' }, 20).state;
    const { state } = fail(paused, 30);
    expect(state.snapshot).toMatchObject({ state: 'IDLE', paused: true });
  });

  it('connect() while paused waits for resume(); idle() gives up waiting; a second pause is a no-op', () => {
    const paused = step(initialState<string>(0), { type: 'pause' }).state;
    expect(paused.snapshot).toEqual(initialState<string>(0).snapshot);
    const waiting = step(paused, { type: 'connect' }, 5).state;
    expect(waiting.snapshot).toMatchObject({ state: 'IDLE', paused: true });
    expect(step(waiting, { type: 'connect' }, 6).detail).toMatch(/^ignored: .*already waiting/);
    expect(step(waiting, { type: 'pause' }, 6).detail).toMatch(/^ignored: pause in IDLE: already paused/);
    const idle = step(waiting, { type: 'idle' }, 7).state;
    expect(idle.snapshot).toEqual({ state: 'IDLE', since: 7, attempt: 0, lastError: undefined });
    const resumed = step(idle, { type: 'resume' }, 8).state;
    expect(resumed.snapshot.state).toBe('IDLE');
    expect(resumed.paused).toBe(false);
  });

  describe('resume() never undercuts the floor on attempt starts', () => {
    const spacing: Partial<MachineEnv> = { attemptSpacing: { burst: 1, interval: 100 } };
    /** Attempt 1 at 0 failed at 0, paused at 0, resumed at 10: the floor allows the next start at 100. */
    const held = () => {
      const failed = fail(step(initialState<string>(0), { type: 'connect' }, 0, spacing).state, 0, spacing).state;
      const parked = step(failed, { type: 'pause' }, 0, spacing).state;
      return step(parked, { type: 'resume' }, 10, spacing);
    };

    it('resumed before the floor allows a start: IDLE, not paused, the attempt armed for the floor', () => {
      const { state, effects, detail } = held();
      expect(state.snapshot).toMatchObject({ state: 'IDLE', since: 10, attempt: 1 });
      expect(state.snapshot).not.toHaveProperty('paused');
      expect(state.paused).toBe(false);
      expect(state.backoff).toBeUndefined();
      expect(effects).toEqual([{ type: 'set-timer', at: 100 }]);
      expect(detail).toBe('resumed; next attempt in 90 ms (the floor on attempt starts)');
      const started = step(state, { type: 'timer', at: 100 }, 100, spacing);
      expect(started.state.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1, since: 100 });
    });

    it('meanwhile connect() changes nothing, idle() cancels the attempt, pause() holds it for the next resume()', () => {
      const { state } = held();
      expect(step(state, { type: 'connect' }, 20, spacing).detail).toMatch(
        /^ignored: connect in IDLE: already waiting for the floor/,
      );
      const idled = step(state, { type: 'idle' }, 20, spacing);
      expect(idled.effects).toEqual([{ type: 'clear-timer' }]);
      expect(idled.state.timerAt).toBeUndefined();
      expect(step(idled.state, { type: 'timer', at: 100 }, 100, spacing).detail).toMatch(/^ignored: stale timer/);
      const paused = step(state, { type: 'pause' }, 20, spacing);
      expect(paused.state.snapshot).toMatchObject({ state: 'IDLE', paused: true });
      expect(paused.effects).toEqual([{ type: 'clear-timer' }]);
      expect(step(paused.state, { type: 'resume' }, 150, spacing).state.snapshot).toMatchObject({
        state: 'CONNECTING',
      });
    });
  });
});

describe('wake (the network is back, the page is shown) and the wait the server asked for', () => {
  const refused = new Error('refused');
  const fail = (m: M, now: number, error: unknown = refused, over: Partial<MachineEnv> = {}) =>
    step(m, { type: 'ended', attemptId: m.attemptId, error, clean: false }, now, over);
  const wake = (m: M, now: number, ifWaitExceeds = 0, over: Partial<MachineEnv> = {}) =>
    step(m, { type: 'wake', ifWaitExceeds }, now, over);
  /** Attempt 1 failed at 10 with `error`; the wait ends at 1000 (its backoff) or later for a hint. */
  const waiting = (error: unknown = refused, over: Partial<MachineEnv> = {}) =>
    fail(step(initialState<string>(0), { type: 'connect' }, 0, over).state, 10, error, over).state;

  it('with more than ifWaitExceeds of the wait left, the next attempt starts at once with a fresh backoff', () => {
    const second = step(waiting(), { type: 'timer', at: 1000 }, 1000).state;
    const t = fail(second, 1100).state; // attempt 2 (1.6 s) failed: wait until 2600
    expect(t.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 2, nextAttemptAt: 2600 });
    const { state, effects, detail } = wake(t, 1200, 1000);
    expect(state.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1, since: 1200 });
    expect(state.deadline).toBe(2200);
    expect(effects.map((e) => e.type)).toEqual(['set-timer', 'start-attempt']);
    expect(detail).toMatch(/^woken: backoff reset; attempt 1/);
  });

  it('with no more than ifWaitExceeds left it is a no-op that says how much was left', () => {
    const t = waiting();
    const result = wake(t, 100, 900);
    expect(result.state).toBe(t);
    expect(result.effects).toEqual([]);
    expect(result.detail).toBe('ignored: wake: 900 ms of the wait left, not over 900 ms');
  });

  it('does not cut a wait the server asked for: a hint longer than the backoff holds it', () => {
    const t = waiting(retryAfter(new Error('503'), 30_000));
    // 30 s from the failure at 10, spread upwards by up to 20 % (random 0.5: +10 %).
    expect(t.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 33_010 });
    expect(t.hintedUntil).toBe(33_010);
    const { state, effects, detail } = wake(t, 500);
    expect(state.snapshot).toBe(t.snapshot);
    expect(state.backoff).toBeUndefined();
    expect(effects).toEqual([]);
    expect(detail).toBe('woken: backoff reset; the wait already ends at the wait the server asked for');
    // The application's own "retry now" still wins.
    expect(step(t, { type: 'reset-backoff' }, 500).state.snapshot.state).toBe('CONNECTING');
  });

  it('a hint shorter than the backoff: the wait is cut to the hint, not to now', () => {
    const over = { backoff: constantBackoff(100_000) };
    const t = waiting(retryAfter(new Error('503'), 5000), over);
    expect(t.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 100_000 });
    const { state, effects, detail } = wake(t, 1000, 0, over);
    expect(state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 5510 });
    expect(effects).toEqual([{ type: 'set-timer', at: 5510 }]);
    expect(detail).toBe('woken: backoff reset; next attempt in 4.5 s (the wait the server asked for)');
    expect(wake(state, 6000, 0, over).detail).toMatch(/^ignored: wake in CONNECTING|^ignored: wake: /);
  });

  it('a hint that has run out no longer holds anything', () => {
    const over = { backoff: constantBackoff(100_000) };
    const t = waiting(retryAfter(new Error('503'), 5000), over);
    expect(wake(t, 6000, 0, over).state.snapshot).toMatchObject({ state: 'CONNECTING', since: 6000 });
  });

  it('cannot undercut the floor on attempt starts', () => {
    const over = { backoff: constantBackoff(60_000), attemptSpacing: { burst: 1, interval: 5000 } };
    const t = waiting(refused, over);
    const { state, effects } = wake(t, 1000, 0, over);
    expect(state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 5000 });
    expect(effects).toEqual([{ type: 'set-timer', at: 5000 }]);
  });

  it('pausing during a wait the server asked for: the wait runs on, then the machine holds', () => {
    const t = waiting(retryAfter(new Error('503'), 30_000));
    const paused = step(t, { type: 'pause' }, 100);
    expect(paused.state.snapshot).toBe(t.snapshot);
    expect(paused.state.paused).toBe(true);
    expect(paused.effects).toEqual([]);
    const held = step(paused.state, { type: 'timer', at: 33_010 }, 33_010);
    expect(held.state.snapshot).toMatchObject({ state: 'IDLE', paused: true, attempt: 1 });
    expect(held.effects).toEqual([]);
    expect(step(held.state, { type: 'resume' }, 40_000).state.snapshot).toMatchObject({ state: 'CONNECTING' });
  });

  it('resumed during that wait, the wait runs on and the attempt starts when it ends', () => {
    const t = waiting(retryAfter(new Error('503'), 30_000));
    const paused = step(t, { type: 'pause' }, 100).state;
    const resumed = step(paused, { type: 'resume' }, 200);
    expect(resumed.state.snapshot).toBe(t.snapshot);
    expect(resumed.state.paused).toBe(false);
    expect(resumed.detail).toBe('resumed; the wait runs on');
    expect(step(resumed.state, { type: 'timer', at: 33_010 }, 33_010).state.snapshot.state).toBe('CONNECTING');
  });

  it('an attempt that fails with a hint while paused waits for the hint first; a reset then holds', () => {
    const paused = step(step(initialState<string>(0), { type: 'connect' }).state, { type: 'pause' }, 1).state;
    const t = fail(paused, 10, retryAfter(new Error('503'), 30_000)).state;
    expect(t.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 33_010 });
    expect(t.paused).toBe(true);
    expect(step(t, { type: 'reset-backoff' }, 20).state.snapshot).toMatchObject({ state: 'IDLE', paused: true });
  });
});

describe('maxRetries', () => {
  const fail = (m: M, now: number, over: Partial<MachineEnv>) =>
    step(
      m,
      {
        type: 'ended',
        attemptId: m.attemptId,
        error: new Error(`refused ${String(m.snapshot.attempt)}`),
        clean: false,
      },
      now,
      over,
    );

  it('gives up when the attempt that used the last retry fails, with the failure as cause', () => {
    const limit = { maxRetries: 2 };
    let m = step(initialState<string>(0), { type: 'connect' }, 0, limit).state;
    const seen: string[] = [];
    for (let now = 10; m.snapshot.state !== 'SHUTDOWN'; now += 10_000) {
      m = fail(m, now, limit).state;
      seen.push(`${m.snapshot.state} ${String(m.snapshot.attempt)}`);
      if (m.snapshot.state === 'TRANSIENT_FAILURE')
        m = step(m, { type: 'timer', at: m.timerAt ?? 0 }, m.timerAt ?? 0, limit).state;
    }
    expect(seen).toEqual(['TRANSIENT_FAILURE 1', 'TRANSIENT_FAILURE 2', 'SHUTDOWN 3']);
    expect(m.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    const error = m.snapshot.lastError as Error;
    expect(isPermanentError(error)).toBe(true);
    expect(error.message).toBe('redialer: gave up after 2 retries (option "maxRetries")');
    expect((error.cause as Error).message).toBe('refused 3');
  });

  it('resetBackoff() starts a new cycle wherever it comes: the attempt in flight is its first', () => {
    const limit = { maxRetries: 2 };
    let m = step(initialState<string>(0), { type: 'connect' }, 0, limit).state;
    for (let now = 10; m.snapshot.attempt < 3; now += 10_000) {
      m = fail(m, now, limit).state;
      m = step(m, { type: 'timer', at: m.timerAt ?? 0 }, m.timerAt ?? 0, limit).state;
    }
    expect(m.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 3 }); // the last retry, in flight
    m = step(m, { type: 'reset-backoff' }, 30_000, limit).state;
    const failed = fail(m, 30_010, limit).state;
    // As in TRANSIENT_FAILURE, the reset gave two more retries: the failure is retried, as attempt 1.
    expect(failed.snapshot.state).toBe('TRANSIENT_FAILURE');
    const next = step(failed, { type: 'timer', at: failed.timerAt ?? 0 }, failed.timerAt ?? 0, limit).state;
    expect(next.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
  });

  it('maxRetries 0: the first failure is the last', () => {
    const m = step(initialState<string>(0), { type: 'connect' }, 0, { maxRetries: 0 }).state;
    expect(fail(m, 10, { maxRetries: 0 }).state.snapshot).toMatchObject({
      state: 'SHUTDOWN',
      reason: 'permanent-failure',
    });
  });

  it('a connection lost before minUptime counts; one lost after it starts a new cycle', () => {
    const ready = inState('READY'); // attempt 1, READY since 10
    expect(fail(ready, 100, { maxRetries: 0 }).state.snapshot.state).toBe('SHUTDOWN');
    expect(fail(ready, 10_000, { maxRetries: 0 }).state.snapshot).toMatchObject({
      state: 'TRANSIENT_FAILURE',
      attempt: 0,
    });
  });
});

describe('backoffAfterLoss: the loss of a stable connection as the first failure of a new cycle', () => {
  const lose = (m: M, now: number, over: Partial<MachineEnv>) =>
    step(m, { type: 'ended', attemptId: m.attemptId, error: new Error('lost'), clean: false }, now, over);

  it('off (gRPC): the backoff resets and the next attempt starts at once, attempt 0 of the new cycle', () => {
    const lost = lose(inState('READY'), 10_000, {});
    expect(lost.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0, nextAttemptAt: 10_000 });
    expect(lost.state.backoff).toBeUndefined();
  });

  it('on: one first wait from the loss, the cycle at its first step, attempt 1; the next wait is the second step', () => {
    const on = { backoffAfterLoss: true };
    const lost = lose(inState('READY'), 10_000, on);
    expect(lost.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: 11_000 });
    expect(lost.state.backoff?.delay).toBe(1000);
    expect(lost.detail).toMatch(/\(backoff reset, the loss counts as its first failure\); next attempt in 1 s/);
    const retry = step(lost.state, { type: 'timer', at: 11_000 }, 11_000, on).state;
    expect(retry.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 2 });
    const failed = step(
      retry,
      { type: 'ended', attemptId: retry.attemptId, error: new Error('x'), clean: false },
      11_010,
      on,
    );
    expect(failed.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 2, nextAttemptAt: 12_600 });
  });

  it('on: maxRetries counts the loss, so maxRetries 0 gives up on it; a young loss is unchanged', () => {
    const lost = lose(inState('READY'), 10_000, { backoffAfterLoss: true, maxRetries: 0 });
    expect(lost.state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    const young = lose(inState('READY'), 100, { backoffAfterLoss: true });
    expect(young.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: 1100 });
  });
});

describe('a connection the server ended gracefully (the grace credit)', () => {
  const end = (m: M, now: number, error: unknown) =>
    step(m, { type: 'ended', attemptId: m.attemptId, error, clean: false }, now);
  const goaway = () => markGracefulEnd(new Error('GOAWAY NO_ERROR'));
  /** The state after the attempt of `m` reached READY at `now`. */
  const established = (m: M, now: number) =>
    step(m, { type: 'established', attemptId: m.attemptId, connection: 'c' }, now).state;
  /** From TRANSIENT_FAILURE or a fresh manager: the next attempt, started when its timer fires. */
  const next = (m: M) => {
    if (m.snapshot.state === 'IDLE') return { m: step(m, { type: 'connect' }, 0).state, at: 0 };
    const at = m.timerAt ?? 0;
    return { m: step(m, { type: 'timer', at }, at).state, at };
  };

  it('without credit (a new manager), a graceful end before minUptime counts as a failure', () => {
    const ready = inState('READY'); // attempt 1, READY since 10; minUptime 5000
    expect(ready.graceCredit).toBe(false);
    const drained = end(ready, 100, goaway());
    // The first wait (1000 ms) counts from the end of the connection, not from the attempt's start.
    expect(drained.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: 1100 });
    expect(drained.state.backoff).toBe(ready.backoff);
    expect(drained.detail).toMatch(/ended gracefully by the server under minUptime 5 s, no grace credit/);
  });

  it('a connection that lived minUptime earns the credit; the next young graceful end spends it on a reset', () => {
    const first = end(established(inState('CONNECTING'), 10), 6000, new Error('connection reset')).state;
    expect(first.graceCredit).toBe(true); // lived 5990 ms, ended abruptly: the backoff reset and the credit earned
    const young = established(next(first).m, 7000);
    const restarted = end(young, 8000, goaway());
    expect(restarted.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0 });
    expect(restarted.state.backoff).toBeUndefined();
    expect(restarted.state.graceCredit).toBe(false);
    expect(restarted.detail).toMatch(/ended gracefully by the server: backoff reset, grace credit spent/);
    // Spent: the next young graceful end counts as a failure.
    const again = end(established(next(restarted.state).m, 9100), 9200, goaway());
    expect(again.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1 });
    expect(again.detail).toMatch(/no grace credit: counts as a failure/);
  });

  it('a server that ends every connection gracefully at once meets the waits of one that refuses, from each end', () => {
    const starts = (fail: (m: M, at: number) => M): number[] => {
      const seen: number[] = [];
      let m: M = initialState<string>(0);
      for (let i = 0; i < 8; i++) {
        const started = next(m);
        seen.push(started.at);
        m = fail(started.m, started.at);
      }
      return seen;
    };
    const refused = starts((m, at) => end(m, at + 1, new Error('ECONNREFUSED')).state);
    const flapping = starts((m, at) => end(established(m, at + 1), at + 2, goaway()).state);
    expect(refused.slice(0, 4)).toEqual([0, 1000, 2600, 5160]); // random 0.5: the nominal starts
    // The same waits, each counted from the end of the 2 ms the connection lasted.
    const waits = (list: number[], from: number) => list.slice(1).map((t, i) => t - ((list[i] ?? 0) + from));
    expect(waits(flapping, 2)).toEqual(waits(refused, 0));
  });

  it('after a reset, still waits one initial backoff after the last attempt began (no tight loop)', () => {
    const lived = end(established(inState('CONNECTING'), 10), 6000, new Error('x')).state;
    const young = next(lived);
    const drained = end(established(young.m, young.at + 1), young.at + 2, goaway());
    const snapshot = drained.state.snapshot;
    expect(snapshot.state === 'TRANSIENT_FAILURE' && snapshot.nextAttemptAt).toBe(young.at + 1000);
    expect(isGracefulEnd(goaway())).toBe(true);
    expect(isGracefulEnd(new Error('x'))).toBe(false);
  });
});
