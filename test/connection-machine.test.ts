/**
 * The pure transition function, table-driven: every (state, event) pair either makes a transition
 * allowed by the TRANSITIONS table or is a no-op that says why. No timers are involved.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConnectivityState,
  type MachineEnv,
  type MachineEvent,
  type MachineState,
  TRANSITIONS,
  constantBackoff,
  grpcBackoff,
  initialState,
  isAllowedTransition,
  isPermanentError,
  permanent,
  transition,
} from '../src/index.js';

const env = (now: number, over: Partial<MachineEnv> = {}): MachineEnv => ({
  now,
  random: () => 0.5,
  backoff: grpcBackoff(),
  minConnectTimeout: 20_000,
  minUptime: 5000,
  autoReconnect: true,
  ...over,
});

type M = MachineState<string>;
const step = (m: M, e: MachineEvent<string>, now = 0, over: Partial<MachineEnv> = {}) => transition(m, e, env(now, over));

/** A machine in each state, reached through real transitions. */
function inState(state: ConnectivityState): M {
  const idle = initialState<string>(0);
  if (state === 'IDLE') return idle;
  const connecting = step(idle, { type: 'connect' }).state;
  if (state === 'CONNECTING') return connecting;
  if (state === 'READY') return step(connecting, { type: 'established', attemptId: 1, connection: 'c' }, 10).state;
  if (state === 'TRANSIENT_FAILURE') return step(connecting, { type: 'ended', attemptId: 1, error: new Error('x'), clean: false }, 10).state;
  return step(idle, { type: 'shutdown' }).state;
}

const EVENTS: Record<string, (m: M) => MachineEvent<string>> = {
  connect: () => ({ type: 'connect' }),
  established: (m) => ({ type: 'established', attemptId: m.attemptId, connection: 'c' }),
  ended: (m) => ({ type: 'ended', attemptId: m.attemptId, error: new Error('boom'), clean: false }),
  timer: (m) => ({ type: 'timer', at: m.timerAt ?? 0 }),
  'reset-backoff': () => ({ type: 'reset-backoff' }),
  idle: () => ({ type: 'idle' }),
  shutdown: () => ({ type: 'shutdown' }),
};

// Expected target per state and event; '-' marks a no-op (same state object, no effects).
const EXPECTED: Record<ConnectivityState, Record<string, ConnectivityState | '-'>> = {
  IDLE: { connect: 'CONNECTING', established: '-', ended: '-', timer: '-', 'reset-backoff': 'IDLE', idle: '-', shutdown: 'SHUTDOWN' },
  CONNECTING: { connect: '-', established: 'READY', ended: 'TRANSIENT_FAILURE', timer: 'TRANSIENT_FAILURE', 'reset-backoff': 'CONNECTING', idle: 'IDLE', shutdown: 'SHUTDOWN' },
  READY: { connect: '-', established: '-', ended: 'TRANSIENT_FAILURE', timer: '-', 'reset-backoff': 'READY', idle: 'IDLE', shutdown: 'SHUTDOWN' },
  TRANSIENT_FAILURE: { connect: '-', established: '-', ended: '-', timer: 'CONNECTING', 'reset-backoff': 'CONNECTING', idle: '-', shutdown: 'SHUTDOWN' },
  SHUTDOWN: { connect: '-', established: '-', ended: '-', timer: '-', 'reset-backoff': '-', idle: '-', shutdown: '-' },
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

  it('only lists transitions of gRPC connectivity semantics', () => {
    expect(TRANSITIONS).toEqual({
      IDLE: ['CONNECTING', 'SHUTDOWN'],
      CONNECTING: ['READY', 'TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      READY: ['TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'],
      TRANSIENT_FAILURE: ['CONNECTING', 'SHUTDOWN'],
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
    expect({ ...m, backoff: undefined }).toEqual(copy);
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
    const broken = { first: () => { throw new Error('bad policy'); } };
    const { state } = step(initialState(0), { type: 'connect' }, 0, { backoff: broken });
    expect(state.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
  });

  it('a NaN delay from a custom policy is a policy error, not a zero wait', () => {
    const nan = { first: () => ({ delay: NaN, next() { return this; } }) };
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
    const { state, effects } = step(m, { type: 'ended', attemptId: m.attemptId, error: new Error('lost'), clean: false }, 10_000, {
      autoReconnect: false,
    });
    expect(state.snapshot).toMatchObject({ state: 'IDLE', attempt: 0 });
    expect(effects).toEqual([]);
  });
});
