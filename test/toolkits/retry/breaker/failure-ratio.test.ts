/**
 * The failure-ratio trip rule as a table: outcomes at given times, the counts the window holds at a
 * time, and whether it trips. The window has ten buckets of window / 10 ms aligned to the clock.
 */
import { describe, expect, it } from 'vitest';
import { failureRatio, ratioCounts } from '../../../../src/toolkits/retry/breaker/failure-ratio.js';
import { SlidingWindow } from '../../../../src/toolkits/retry/budgets/sliding-window.js';

type Row = readonly ['F' | 'S' | 'lateF' | 'lateS', number];
const rules = { failureRatio: 0.5, minimumThroughput: 4, window: 1000 };
const rule = failureRatio(rules);

/** Four failures, three in the bucket [0, 100) and one in [100, 200): read at 1099 and at 1100. */
const ACROSS_TWO_BUCKETS: Row[] = [
  ['F', 0],
  ['F', 50],
  ['F', 99],
  ['F', 100],
];

function feed(rows: readonly Row[]) {
  return rows.reduce(
    (w, [o, t]) => rule.record(w, { kind: o.endsWith('F') ? 'failure' : 'success', late: o.startsWith('late') }, t),
    rule.initial(),
  );
}

describe('failureRatio({ failureRatio: 0.5, minimumThroughput: 4, window: 1000 })', () => {
  it.each([
    { rule: 'an empty window does not trip', rows: [], at: 0, failures: 0, successes: 0, trips: false },
    {
      rule: 'below the minimum calls, all failures do not trip',
      rows: [
        ['F', 0],
        ['F', 0],
        ['F', 0],
      ] as Row[],
      at: 0,
      failures: 3,
      successes: 0,
      trips: false,
    },
    {
      rule: 'the ratio reached at the minimum calls trips',
      rows: [
        ['S', 0],
        ['S', 10],
        ['F', 20],
        ['F', 30],
      ] as Row[],
      at: 30,
      failures: 2,
      successes: 2,
      trips: true,
    },
    {
      rule: 'under the ratio does not trip',
      rows: [
        ['S', 0],
        ['S', 0],
        ['S', 0],
        ['F', 0],
      ] as Row[],
      at: 0,
      failures: 1,
      successes: 3,
      trips: false,
    },
    {
      rule: 'late calls count',
      rows: [
        ['lateF', 0],
        ['lateF', 0],
        ['F', 0],
        ['lateS', 0],
      ] as Row[],
      at: 0,
      failures: 3,
      successes: 1,
      trips: true,
    },
    {
      rule: 'roll-over: a bucket counts while any part of it is inside the window',
      rows: ACROSS_TWO_BUCKETS,
      at: 1099,
      failures: 4,
      successes: 0,
      trips: true,
    },
    {
      rule: 'roll-over: a bucket wholly outside the window no longer counts',
      rows: ACROSS_TWO_BUCKETS,
      at: 1100,
      failures: 1,
      successes: 0,
      trips: false,
    },
    {
      rule: 'roll-over: a bucket reused a lap later starts empty',
      rows: [
        ['F', 0],
        ['F', 0],
        ['F', 0],
        ['S', 1000],
      ] as Row[],
      at: 1000,
      failures: 0,
      successes: 1,
      trips: false,
    },
  ])('$rule', ({ rows, at, failures, successes, trips }) => {
    const window = feed(rows);
    expect(ratioCounts(window, rules.window, at)).toEqual({ failures, successes });
    expect(rule.shouldTrip(window, at)).toBe(trips);
  });

  it('records without changing the window it was given', () => {
    const empty = rule.initial();
    const one = rule.record(empty, { kind: 'failure', late: false }, 0);
    expect(ratioCounts(empty, 1000, 0)).toEqual({ failures: 0, successes: 0 });
    expect(ratioCounts(one, 1000, 0)).toEqual({ failures: 1, successes: 0 });
  });

  it('counts as SlidingWindow does, at every time', () => {
    let now = 0;
    const reference = new SlidingWindow<'F' | 'S'>(730, () => now);
    const ratio = failureRatio({ failureRatio: 1, minimumThroughput: 1, window: 730 });
    let window = ratio.initial();
    for (let i = 0; i < 500; i++) {
      now += (i * 37) % 211;
      const kind = i % 3 === 0 ? 'S' : 'F';
      reference.add(kind);
      window = ratio.record(window, { kind: kind === 'S' ? 'success' : 'failure', late: false }, now);
      expect(ratioCounts(window, 730, now)).toEqual({
        failures: reference.count('F'),
        successes: reference.count('S'),
      });
    }
  });
});
