/**
 * The pure transition function, table-driven: every (state, event) pair either makes a transition
 * allowed by the TRANSITIONS table or is a no-op that says why. No timers are involved.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConnectivityState,
  TRANSITIONS,
  constantBackoff,
  isAllowedTransition,
  isGracefulEnd,
  isPermanentError,
  markGracefulEnd,
  permanent,
} from '../src/index.js';
import {
  type MachineEnv,
  type MachineEvent,
  type MachineState,
  initialState,
  transition,
} from '../src/machine/index.js';
import { machineEnv } from './support/machine-env.js';

const env = machineEnv;

type M = MachineState<string>;
const step = (m: M, e: MachineEvent<string>, now = 0, over: Partial<MachineEnv> = {}) =>
  transition(m, e, env(now, over));

/** A machine in each state, reached through real transitions. */
function inState(state: ConnectivityState): M {
  const idle = initialState<string>(0);
  if (state === 'IDLE') return idle;
  const connecting = step(idle, { type: 'connect' }).state;
  if (state === 'CONNECTING') return connecting;
  if (state === 'READY') return step(connecting, { type: 'established', attemptId: 1, connection: 'c' }, 10).state;
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
  idle: () => ({ type: 'idle' }),
  pause: () => ({ type: 'pause' }),
  resume: () => ({ type: 'resume' }),
  shutdown: () => ({ type: 'shutdown' }),
};

// Expected target per state and event; '-' marks a no-op (same state object, no effects).
const EXPECTED: Record<ConnectivityState, Record<string, ConnectivityState | '-'>> = {
  IDLE: {
    connect: 'CONNECTING',
    established: '-',
    ended: '-',
    timer: '-',
    'reset-backoff': 'IDLE',
    idle: '-',
    pause: 'IDLE',
    resume: '-',
    shutdown: 'SHUTDOWN',
  },
  CONNECTING: {
    connect: '-',
    established: 'READY',
    ended: 'TRANSIENT_FAILURE',
    timer: 'TRANSIENT_FAILURE',
    'reset-backoff': 'CONNECTING',
    idle: 'IDLE',
    pause: 'CONNECTING',
    resume: '-',
    shutdown: 'SHUTDOWN',
  },
  READY: {
    connect: '-',
    established: '-',
    ended: 'TRANSIENT_FAILURE',
    timer: '-',
    'reset-backoff': 'READY',
    idle: 'IDLE',
    pause: 'READY',
    resume: '-',
    shutdown: 'SHUTDOWN',
  },
  TRANSIENT_FAILURE: {
    connect: '-',
    established: '-',
    ended: '-',
    timer: 'CONNECTING',
    'reset-backoff': 'CONNECTING',
    idle: '-',
    pause: 'IDLE',
    resume: '-',
    shutdown: 'SHUTDOWN',
  },
  SHUTDOWN: {
    connect: '-',
    established: '-',
    ended: '-',
    timer: '-',
    'reset-backoff': '-',
    idle: '-',
    pause: '-',
    resume: '-',
    shutdown: '-',
  },
};

describe('transition table', () => {
  const rows = Object.entries(EXPECTED).flatMap(([state, events]) =>
    Object.entries(events).map(([event, to]) => [state as ConnectivityState, event, to] as const),
  );

  it.each(rows)('%s + %s -> %s', (state, event, to) => {
    const m = inState(state);
    const result = step(m, EVENTS[event]!(m), 20);
    if (to === '-') {
      expect(result.state).toBe(m);
      expect(result.effects).toEqual([]);
      expect(result.detail).toMatch(/^ignored: /);
    } else {
      expect(result.state.snapshot.state).toBe(to);
      if (to !== state) expect(isAllowedTransition(state, to)).toBe(true);
    }
  });

  it('the handlers make exactly the transitions of the table: TRANSITIONS is neither looser nor stricter', () => {
    const made = new Set<string>();
    for (const [state, event] of rows) {
      const m = inState(state);
      const to = step(m, EVENTS[event]!(m), 20).state.snapshot.state;
      if (to !== state) made.add(`${state} -> ${to}`);
    }
    const allowed = Object.entries(TRANSITIONS).flatMap(([from, targets]) => targets.map((to) => `${from} -> ${to}`));
    expect([...made].sort()).toEqual(allowed.sort());
  });

  it('only lists transitions of gRPC connectivity semantics', () => {
    expect(TRANSITIONS).toEqual({
      IDLE: ['CONNECTING', 'SHUTDOWN'],
      CONNECTING: ['READY', 'TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      READY: ['TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      TRANSIENT_FAILURE: ['CONNECTING', 'IDLE', 'SHUTDOWN'],
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
    expect(connecting.detail).toBe('connection requested; attempt 1, next no sooner than +1000 ms, cut at +20000 ms');
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
    expect(lost.detail).toBe('connection lost after 6000 ms (backoff reset); next attempt in 0 ms');
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

describe('a connection the server ended gracefully', () => {
  const end = (m: M, now: number, error: unknown) =>
    step(m, { type: 'ended', attemptId: m.attemptId, error, clean: false }, now);

  it('resets the backoff even before minUptime, where any other loss counts as a failure', () => {
    const ready = inState('READY'); // attempt 1, READY since 10; minUptime 5000
    const lost = end(ready, 100, new Error('connection reset'));
    expect(lost.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1 });
    const drained = end(ready, 100, markGracefulEnd(new Error('GOAWAY NO_ERROR')));
    expect(drained.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0 });
    expect(drained.state.backoff).toBeUndefined();
    expect(drained.detail).toMatch(/ended gracefully by the server: backoff reset/);
  });

  it('still waits one initial backoff after the last attempt began (no tight loop)', () => {
    const ready = inState('READY');
    const drained = end(ready, 100, markGracefulEnd(new Error('GOAWAY NO_ERROR')));
    const snapshot = drained.state.snapshot;
    expect(snapshot.state === 'TRANSIENT_FAILURE' && snapshot.nextAttemptAt).toBeGreaterThanOrEqual(
      ready.attemptStartedAt + 1000,
    );
    expect(isGracefulEnd(markGracefulEnd(new Error('x')))).toBe(true);
    expect(isGracefulEnd(new Error('x'))).toBe(false);
  });
});
