import { describe, expect, it } from 'vitest';
import { BrokenCircuitError } from '../../../../src/toolkits/retry/index.js';

describe('BrokenCircuitError: its message says how long the break has left', () => {
  it.each([
    ['with the clock reading: what is left', 5000, { now: 800 }, 'is open for another 4.2 s'],
    [
      'with the clock reading, until Infinity (isolate(), a broken policy)',
      Infinity,
      { now: 800 },
      'is open until reset()',
    ],
    ['until reached: a busy half-open breaker', 800, { now: 800 }, 'is half-open with its probe in flight'],
    [
      'without it: the instant as a date',
      Date.UTC(2026, 0, 2, 3, 4, 5),
      undefined,
      'is open until 2026-01-02T03:04:05.000Z',
    ],
    ['without it, until Infinity', Infinity, undefined, 'is open until reset()'],
    ['without it, beyond any date: the number as given', 1e300, undefined, 'is open until 1e+300'],
  ])('%s', (_, until, options, state) => {
    const error = new BrokenCircuitError('mail', until, options);
    expect(error.message).toBe(`circuit breaker "mail" ${state}; the call was not run`);
    expect(error.until).toBe(until);
  });

  it('keeps the cause it is given', () => {
    const cause = new Error('boom');
    expect(new BrokenCircuitError('mail', 10, { cause, now: 0 }).cause).toBe(cause);
    expect('cause' in new BrokenCircuitError('mail', 10, { now: 0 })).toBe(false);
  });
});
