/** The schedule checker itself: it must reject what the invariant forbids, or the property suite proves nothing. */
import { describe, expect, it } from 'vitest';
import { constantBackoff, grpcBackoff } from '../../src/index.js';
import {
  type AttemptRecord,
  checkFailoverSchedule,
  checkRequestSchedule,
  policyRules,
  unfoldDelays,
} from './request-schedule.js';

const fail = (start: number, end = start, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  start,
  end,
  outcome: 'failure',
  ...extra,
});

describe('checkRequestSchedule', () => {
  const rules = policyRules(grpcBackoff({ initialBackoff: 100 }));

  it('unfolds the shortest and longest waits of a policy (gRPC: the first exactly I, then ±20 %)', () => {
    expect(unfoldDelays(grpcBackoff({ initialBackoff: 100 }), 0, 3)).toEqual([100, 128, 204.8]);
    expect(unfoldDelays(grpcBackoff({ initialBackoff: 100 }), 1, 3).map(Math.round)).toEqual([100, 192, 307]);
  });

  it('accepts a schedule that keeps every bound', () => {
    expect(checkRequestSchedule([fail(0), fail(100), fail(260), fail(516)], rules)).toEqual([]);
  });

  it('rejects a too-fast schedule: a second wait of 100 ms where 128 ms is the least', () => {
    const violations = checkRequestSchedule([fail(0), fail(100), fail(200)], rules);
    expect(violations.map((v) => [v.attempt, v.rule])).toEqual([[2, 'policy-minimum']]);
  });

  it('measures from the attempt’s start: waiting the backoff after a long failure is too late', () => {
    const once = policyRules(constantBackoff(100));
    expect(checkRequestSchedule([fail(0, 50), fail(100)], once)).toEqual([]);
    expect(checkRequestSchedule([fail(0, 50), fail(150)], once).map((v) => v.rule)).toEqual(['upper-bound']);
  });

  it('rejects an attempt before a hint ends, one after a final failure, and one that breaks the floor', () => {
    const once = policyRules(constantBackoff(0), { spacing: { burst: 1, interval: 50 } });
    const hinted = fail(0, 0, { hint: { atLeast: 500, atMost: 600 } });
    expect(checkRequestSchedule([hinted, fail(400)], once).map((v) => v.rule)).toEqual(['server-hint']);
    expect(checkRequestSchedule([hinted, fail(700)], once).map((v) => v.rule)).toEqual(['upper-bound']);
    expect(checkRequestSchedule([fail(0, 0, { final: 'policy threw' }), fail(5000)], once).map((v) => v.rule)).toEqual([
      'after-final',
    ]);
    expect(checkRequestSchedule([fail(0), fail(10)], once).map((v) => v.rule)).toEqual(['spacing-floor']);
  });

  it('restarts the episode at a success', () => {
    const ok: AttemptRecord = { start: 228, end: 228, outcome: 'success' };
    expect(checkRequestSchedule([fail(0), fail(100), ok, fail(300), fail(400)], rules)).toEqual([]);
    expect(checkRequestSchedule([fail(0), fail(100), fail(228), fail(328)], rules).map((v) => v.attempt)).toEqual([3]);
  });
});

describe('checkFailoverSchedule', () => {
  it('checks each provider against its own last start, and an idle call against the soonest provider', () => {
    const rules = new Map([
      ['a', policyRules(constantBackoff(100))],
      ['b', policyRules(constantBackoff(100))],
    ]);
    const spacing = { burst: 5, interval: 100 };
    const a = (start: number, end: number) => ({ ...fail(start, end), provider: 'a' });
    const b = (start: number, end: number) => ({ ...fail(start, end), provider: 'b' });
    // a fails at 0–10, b at 10–20, a again at 100 (its own wait from its start): fine.
    expect(checkFailoverSchedule([{ start: 0, attempts: [a(0, 10), b(10, 20), a(100, 110)] }], rules, spacing)).toEqual(
      [],
    );
    // a again at 50: too fast for a.
    expect(
      checkFailoverSchedule([{ start: 0, attempts: [a(0, 10), b(10, 20), a(50, 60)] }], rules, spacing).map(
        (v) => v.rule,
      ),
    ).toEqual(['policy-minimum']);
    // a again at 110 (100 ms after its failure, not its start): too late, the call sat idle.
    expect(
      checkFailoverSchedule([{ start: 0, attempts: [a(0, 10), b(10, 20), a(110, 120)] }], rules, spacing).map(
        (v) => v.rule,
      ),
    ).toEqual(['upper-bound']);
  });
});
