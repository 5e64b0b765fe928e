/** The consecutive-failures trip rule as a table: a run of outcomes, the run it leaves, whether it trips. */
import { describe, expect, it } from 'vitest';
import { consecutiveFailures } from '../../../../src/toolkits/retry/breaker/consecutive-failures.js';
import type { CallOutcome } from '../../../../src/toolkits/retry/breaker/trip-strategy.js';

const F: CallOutcome = { kind: 'failure', late: false };
const S: CallOutcome = { kind: 'success', late: false };
const lateF: CallOutcome = { kind: 'failure', late: true };
const lateS: CallOutcome = { kind: 'success', late: true };

describe('consecutiveFailures(3)', () => {
  const rule = consecutiveFailures(3);
  it.each([
    { rule: 'a new breaker has no run', outcomes: [], run: 0, trips: false },
    { rule: 'two failures are short of the threshold', outcomes: [F, F], run: 2, trips: false },
    { rule: 'three failures in a row reach it', outcomes: [F, F, F], run: 3, trips: true },
    { rule: 'a success ends the run', outcomes: [F, F, S, F], run: 1, trips: false },
    { rule: 'a late failure does not extend the run', outcomes: [F, F, lateF], run: 2, trips: false },
    { rule: 'a late success does not end the run', outcomes: [F, F, lateS, F], run: 3, trips: true },
  ])('$rule', ({ outcomes, run, trips }) => {
    const state = outcomes.reduce((s, o) => rule.record(s, o, 0), rule.initial());
    expect(state).toBe(run);
    expect(rule.shouldTrip(state, 0)).toBe(trips);
  });
});
