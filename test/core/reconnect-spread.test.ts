/**
 * `reconnectSpread`: the first reconnect after a lost READY connection starts no sooner than U(0,
 * spread) after the loss, or at the backoff's or the server's wait if that is later.
 * Table tests on the pure transition function, then one manager on virtual time.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionManager, retryAfter } from '../../src/index.js';
import { type MachineState, initialState, transition } from '../../src/core/index.js';
import { machineEnv } from '../support/machine-env.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';

const env = machineEnv;

/** READY since t = 0 (attempt 1 started at 0). */
function ready(): MachineState<string> {
  const connecting = transition(initialState<string>(0), { type: 'connect' }, env(0)).state;
  return transition(connecting, { type: 'established', attemptId: 1, connection: 'c' }, env(0)).state;
}

describe('reconnectSpread in the transition function', () => {
  it.each([
    // lost at, spread, random, error, → next attempt at
    ['stable loss, no spread: at once', 60_000, 0, 0.5, undefined, 60_000],
    ['stable loss, spread 10 s, random 0: at once', 60_000, 10_000, 0, undefined, 60_000],
    ['stable loss, spread 10 s, random 0.5: +5 s', 60_000, 10_000, 0.5, undefined, 65_000],
    ['stable loss, spread 10 s, random 1: +10 s', 60_000, 10_000, 1, undefined, 70_000],
    // The hint is spread upwards by up to 20 % of itself (r 0.5: 8000 -> 8800).
    ['a server hint longer than the draw wins', 60_000, 10_000, 0.5, 8000, 68_800],
    ['the draw longer than a server hint wins', 60_000, 10_000, 0.9, 2000, 69_000],
    // A flap's wait (1000 ms, drawn at the attempt's start at 0) counts from its end at 500.
    ['a flap (under minUptime) keeps its wait from its end when later', 500, 200, 1, undefined, 1500],
    ['a flap gets the spread when later than the deadline', 500, 10_000, 0.5, undefined, 5500],
  ] as const)('%s', (_label, at, spread, r, hint, expected) => {
    const error = hint === undefined ? new Error('lost') : retryAfter(new Error('1012'), hint);
    const result = transition(
      ready(),
      { type: 'ended', attemptId: 1, error, clean: false },
      env(at, { reconnectSpread: spread, random: () => r }),
    );
    expect(result.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: expected });
    expect(result.effects).toEqual([{ type: 'set-timer', at: expected }]);
  });

  it('draws nothing without a spread, and nothing when the loss goes IDLE', () => {
    let draws = 0;
    const random = (): number => {
      draws += 1;
      return 0.5;
    };
    transition(
      ready(),
      { type: 'ended', attemptId: 1, error: new Error('lost'), clean: false },
      env(60_000, { random }),
    );
    expect(draws).toBe(0);
    const idle = transition(
      ready(),
      { type: 'ended', attemptId: 1, error: new Error('lost'), clean: false },
      env(60_000, {
        random,
        autoReconnect: false,
        reconnectSpread: 10_000,
      }),
    );
    expect(idle.state.snapshot.state).toBe('IDLE');
    expect(draws).toBe(0);
  });

  it('does not touch attempts that fail before READY', () => {
    const connecting = transition(initialState<string>(0), { type: 'connect' }, env(0)).state;
    const failed = transition(
      connecting,
      { type: 'ended', attemptId: 1, error: new Error('refused'), clean: false },
      env(10, { reconnectSpread: 10_000, random: () => 1 }),
    );
    expect(failed.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 1000 });
  });
});

describe('reconnectSpread in a manager', () => {
  it('spreads the first reconnect of a lost connection, then backs off as usual', () => {
    const clock = createVirtualClock();
    let up = true;
    const startedAt: number[] = [];
    const fake = createFakeConnector((a) => {
      startedAt.push(clock.now());
      if (up) a.establish('c');
      else a.fail(new Error('refused'));
    });
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: clock.scheduler,
      random: () => 0.25,
      reconnectSpread: 8000,
    });
    manager.connect();
    clock.advanceTo(60_000);
    up = false;
    fake.attempts[0]?.fail(new Error('lost'));
    expect(manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 62_000 });
    clock.advanceTo(63_000);
    expect(startedAt).toEqual([0, 62_000, 63_000]);
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('rejects a bad spread by name', () => {
    const fake = createFakeConnector(() => undefined);
    expect(() => new ConnectionManager({ connector: fake.connector, reconnectSpread: -1 })).toThrow(
      /option "reconnectSpread" must be/,
    );
    expect(() => new ConnectionManager({ connector: fake.connector, reconnectSpread: Number.NaN })).toThrow(
      /reconnectSpread/,
    );
  });
});
