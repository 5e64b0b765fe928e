/**
 * `serverHints`: a server's retry hint as a floor under the backoff (default) or, opted in, as the
 * wait itself within the policy's bounds. Table tests on the pure transition function.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionManager, constantBackoff, exponentialBackoff, grpcBackoff, retryAfter } from '../../src/index.js';
import { type MachineEnv, type MachineState, initialState, transition } from '../../src/core/index.js';
import { machineEnv } from '../support/machine-env.js';

const env = machineEnv;

/** After `failures` failed attempts at once from t = 0 with random 0.5: CONNECTING at `at`. */
function connectingAfter(failures: number, over: Partial<MachineEnv> = {}): { m: MachineState<string>; at: number } {
  let m = transition(initialState<string>(0), { type: 'connect' }, env(0, over)).state;
  let at = 0;
  for (let i = 0; i < failures; i += 1) {
    m = transition(
      m,
      { type: 'ended', attemptId: m.attemptId, error: new Error('refused'), clean: false },
      env(at, over),
    ).state;
    at = m.timerAt ?? at;
    m = transition(m, { type: 'timer', at }, env(at, over)).state;
  }
  return { m, at };
}

describe('serverHints on a failed attempt', () => {
  // After 6 failures the backoff after attempt 7 is 16.777 s from its start.
  it.each([
    // mode, hint, → wait from the failure
    ['at-least', 2000, 16_777.216],
    ['at-least', 30_000, 33_000], // the hint, spread upwards by up to 20 % (random 0.5: +10 %)
    ['exact', 2000, 2000],
    ['exact', 30_000, 30_000],
    ['exact', 10, 1000], // never faster than the policy's first wait
    ['exact', 10_000_000, 144_000], // never past its cap (120 s + 20 % jitter)
  ] as const)('%s with a hint of %s ms waits %s ms', (mode, hint, wait) => {
    const { m, at } = connectingAfter(6, { serverHints: mode });
    const t = transition(
      m,
      { type: 'ended', attemptId: m.attemptId, error: retryAfter(new Error('503'), hint), clean: false },
      env(at, { serverHints: mode }),
    );
    expect(t.state.snapshot.state).toBe('TRANSIENT_FAILURE');
    expect((t.state.snapshot as { nextAttemptAt: number }).nextAttemptAt - at).toBeCloseTo(wait, 3);
    expect(t.detail).toMatch(mode === 'exact' ? /honoured within the policy's bounds/ : /asked for at least/);
  });

  it('ignores errors without a hint, and uses each policy’s own bounds', () => {
    const { m, at } = connectingAfter(2, { serverHints: 'exact' });
    const plain = transition(
      m,
      { type: 'ended', attemptId: m.attemptId, error: new Error('refused'), clean: false },
      env(at, { serverHints: 'exact' }),
    );
    expect((plain.state.snapshot as { nextAttemptAt: number }).nextAttemptAt).toBe(m.deadline);
    expect(constantBackoff(750).bounds).toEqual({ min: 750, max: 750 });
    expect(exponentialBackoff({ initialDelay: 200, maxDelay: 5000 }).bounds).toEqual({ min: 200, max: 5000 });
    expect(grpcBackoff({ jitterMode: 'episode-period' }).bounds?.max).toBeCloseTo(120_000 * Math.sqrt(1.6), 6);
  });
});

describe('serverHints on a lost connection (drain: 1012 with a hint)', () => {
  const ready = (over: Partial<MachineEnv>): MachineState<string> => {
    const c = transition(initialState<string>(0), { type: 'connect' }, env(0, over)).state;
    return transition(c, { type: 'established', attemptId: 1, connection: 'c' }, env(0, over)).state;
  };

  it.each([
    ['at-least', 0, 44_400], // the hint spread upwards by up to 20 % (random 1: +20 %)
    ['exact', 0, 37_000],
    ['at-least', 60_000, 60_000], // the later of the hint and the client's own spread
    // exact: the server's spread replaces the client's own reconnect spread.
    ['exact', 60_000, 37_000],
  ] as const)('%s with reconnectSpread %s waits %s ms after a hint of 37 s', (mode, spread, wait) => {
    const over = { serverHints: mode, reconnectSpread: spread, random: () => 1 };
    const t = transition(
      ready(over),
      { type: 'ended', attemptId: 1, error: retryAfter(new Error('1012'), 37_000), clean: false },
      env(100_000, over),
    );
    expect(t.state.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 100_000 + wait });
  });

  it('rejects an unknown mode by name', () => {
    expect(
      () =>
        new ConnectionManager({
          connector: () => {
            throw new Error('unused');
          },
          serverHints: 'always' as never,
        }),
    ).toThrow(/option "serverHints" must be one of/);
  });
});

describe('the ceiling on server hints (maxRetryAfter)', () => {
  const lost = (hint: unknown, over: Partial<MachineEnv> = {}) => {
    const { m, at } = connectingAfter(1, over);
    // A hand-made value with the brand (another copy of redialer) carries the hint unchecked.
    const error = Object.assign(retryAfter(new Error('503'), 0), { delay: hint });
    const t = transition(m, { type: 'ended', attemptId: m.attemptId, error, clean: false }, env(at, over));
    return { wait: (t.state.snapshot as { nextAttemptAt: number }).nextAttemptAt - at, detail: t.detail, m, at };
  };

  it.each([
    ['1e30', 1e30, 144_000],
    ['2^31 - 1', 2 ** 31 - 1, 144_000],
    ['Infinity', Infinity, 144_000],
  ])(
    'a hint of %s ms is cut to the default ceiling, the policy’s longest wait (144 s), and the trace says so',
    (_label, hint, wait) => {
      // random 0: no spread (at the ceiling the spread goes downwards, within [0.8, 1] of it).
      const { wait: got, detail } = lost(hint, { random: () => 0 });
      expect(got).toBe(wait);
      expect(detail).toMatch(/cut to maxRetryAfter \(2 min 24 s\)/);
    },
  );

  it.each([
    ['0', 0],
    ['negative', -5000],
    ['NaN', NaN],
    ['a string', '30000'],
    ['undefined', undefined],
  ])('a hint of %s asks for nothing: the backoff alone decides', (_label, hint) => {
    const { wait, detail, m, at } = lost(hint);
    expect(wait).toBe(m.deadline - at);
    expect(detail).not.toMatch(/asked/);
  });

  it('the ceiling is an option, tied by default to the policy’s cap but never under 120 s', () => {
    expect(lost(1e9, { maxRetryAfter: 10_000, random: () => 0 }).wait).toBe(10_000);
    expect(lost(1e9, { backoff: constantBackoff(500), random: () => 0 }).wait).toBe(120_000);
    const long = grpcBackoff({ maxBackoff: 600_000 });
    expect(lost(1e9, { backoff: long, random: () => 0 }).wait).toBe(720_000);
    // 'exact' honours a hint within the policy's bounds and the ceiling.
    expect(lost(1e9, { serverHints: 'exact', maxRetryAfter: 50_000 }).wait).toBe(50_000);
  });

  it.each([
    [-1, /option "maxRetryAfter" must be/],
    [NaN, /option "maxRetryAfter" must be.*NaN/],
    [2 ** 31, /option "maxRetryAfter" must be/],
    ['60s', /option "maxRetryAfter" must be/],
  ])('rejects maxRetryAfter %s by name', (value, message) => {
    expect(
      () =>
        new ConnectionManager({
          connector: () => {
            throw new Error('unused');
          },
          maxRetryAfter: value as number,
        }),
    ).toThrow(message);
  });

  it('a manager with the default policy holds no client past 144 s on a hint of 1e30 ms', () => {
    expect(lost(1e30).wait).toBeLessThanOrEqual(144_000);
  });
});
