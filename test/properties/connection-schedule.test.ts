/**
 * The schedule checker (test/support/connection-schedule.ts) accepts the documented schedules and
 * rejects each way of breaking them: a checker that cannot fail would prove nothing. Table cases, no
 * generated ones.
 */
import { describe, expect, it } from 'vitest';
import { constantBackoff, grpcBackoff } from '../../src/index.js';
import {
  type AttemptEnd,
  type RaceTrace,
  type ScheduleRules,
  type TracedAttempt,
  hintOf,
  raceViolations,
  scheduleViolations,
  unfoldDelays,
} from '../support/connection-schedule.js';

const FAST: ScheduleRules = { backoff: grpcBackoff({ initialBackoff: 100 }), minUptime: 5000 };

/** Attempts that each failed where they started (a refusing server). */
const refused = (starts: readonly number[], hint?: unknown): TracedAttempt[] =>
  starts.map((start) => ({ start, end: { kind: 'failed', at: start, hint } }));

/** Attempts that each reached READY at once and were ended `uptime` later, gracefully or not. */
const flapped = (starts: readonly number[], uptime: number, graceful: boolean): TracedAttempt[] =>
  starts.map((start) => ({ start, end: { kind: 'lost', readyAt: start, at: start + uptime, graceful } }));

const trace = (attempts: TracedAttempt[], end = (attempts.at(-1)?.start ?? 0) + 1) => ({ attempts, end });

/** Starts spaced by `waits`, from 0. */
const startsOf = (waits: readonly number[]): number[] =>
  waits.reduce((list, w) => [...list, (list.at(-1) ?? 0) + w], [0]);

describe('connection-schedule: the checker of the schedule invariant', () => {
  it('unfolds a policy at its extremes: gRPC 100 ms gives 100 then 0.8x and 1.2x of 160, 256, …', () => {
    const policy = grpcBackoff({ initialBackoff: 100 });
    expect(unfoldDelays(policy, () => 0, 3)).toEqual([100, 128, 204.8]);
    expect(unfoldDelays(policy, () => 1, 3).map(Math.round)).toEqual([100, 192, 307]);
  });

  it('reads a hint as the protocol does: 0, negative, NaN and strings ask for nothing', () => {
    expect([0, -5, Number.NaN, '30', undefined, 250, Infinity].map(hintOf)).toEqual([0, 0, 0, 0, 0, 250, Infinity]);
  });

  it('accepts the schedule of a refusing server, random pinned at 0, 0.5 and 1', () => {
    for (const r of [0, 0.5, 1]) {
      const waits = unfoldDelays(FAST.backoff, () => r, 8);
      expect(scheduleViolations(trace(refused(startsOf(waits))), FAST)).toEqual([]);
    }
  });

  it('REJECTS a too-fast schedule: every wait 100 ms against a refusing server', () => {
    const violations = scheduleViolations(trace(refused(startsOf(Array(21).fill(100)))), FAST);
    expect(violations[0]).toBe(
      'attempt 3 at 200 ms: 100 ms after attempt 2 began (ended failed at 100 ms), under 128 ms: the shortest wait after failure 2 of the cycle',
    );
  });

  it('REJECTS the graceful-end flap (SETTINGS then GOAWAY NO_ERROR every 100 ms), accepts it on the refusal schedule', () => {
    // Issue 29: 22 attempts in 2.2 s, where the schedule allows 6 (0, 100, 260, 516, 926, 1581 ms).
    const tooFast = scheduleViolations(trace(flapped(startsOf(Array(21).fill(100)), 0, true)), FAST);
    expect(tooFast[0]).toMatch(/^attempt 3 at 200 ms: .*under 128 ms: .*graceful, no credit/);
    const allowed = unfoldDelays(FAST.backoff, () => 0.5, 5);
    expect(scheduleViolations(trace(flapped(startsOf(allowed), 0, true)), FAST)).toEqual([]);
  });

  it('REJECTS a reconnect at once after a connection that lived under minUptime: its wait counts from its end', () => {
    // READY for 300 ms (longer than the 100 ms first wait), then lost: the next start is due 100 ms after the loss.
    const atOnce = [...flapped([0], 300, false), ...refused([305])];
    expect(scheduleViolations(trace(atOnce), FAST)[0]).toMatch(
      /^attempt 2 at 305 ms: .*under 400 ms: the shortest wait after failure 1 of the cycle \(READY 300 ms, under minUptime 5000 ms\), from its end/,
    );
    expect(scheduleViolations(trace([...flapped([0], 300, false), ...refused([400])]), FAST)).toEqual([]);
  });

  it('the grace credit: a connection that lived earns one reset for the next young graceful end, not two', () => {
    const lived: AttemptEnd = { kind: 'lost', readyAt: 0, at: 10_000, graceful: true };
    const young = (start: number): TracedAttempt => ({
      start,
      end: { kind: 'lost', readyAt: start, at: start, graceful: true },
    });
    // 0 lived, then young connections every 100 ms, each ended gracefully at once. One of them may
    // reset the cycle with the credit (the first, or a later one if a component counted the first as
    // a failure); every other counts as a failure, and a second failure needs 128 ms.
    const attempts = [{ start: 0, end: lived }, ...[1, 2, 3, 4, 5].map((n) => young(10_000 + 100 * n))];
    expect(scheduleViolations(trace(attempts.slice(0, 5)), FAST)).toEqual([]);
    expect(scheduleViolations(trace(attempts), FAST)[0]).toMatch(/^attempt 6 at 10500 ms: .*under 128 ms/);
    // Without the lived connection there is no credit: the young ends count from the first.
    expect(scheduleViolations(trace([young(0), young(100), young(200)]), FAST)[0]).toMatch(/^attempt 3/);
  });

  it('a connection READY for minUptime resets the cycle, but the next start still waits one first delay', () => {
    const attempts: TracedAttempt[] = [...refused([0, 100, 260]), ...flapped([516], 5000, false), ...refused([5616])];
    expect(scheduleViolations(trace(attempts), FAST)).toEqual([]);
    // With minUptime 0 every connection resets, and the one-first-delay floor is what is left.
    const soon = [...flapped([0], 0, false), ...refused([50])];
    expect(scheduleViolations(trace(soon), { ...FAST, minUptime: 0 })[0]).toBe(
      'attempt 2 at 50 ms: 50 ms after attempt 1 began (ended lost at 0 ms), under 100 ms: one shortest first wait after the last start (the cycle restarted)',
    );
  });

  it('REJECTS an attempt that starts before the one before it ended', () => {
    const attempts = [...flapped([0], 5000, false), { start: 50 }];
    expect(scheduleViolations(trace(attempts), FAST)[0]).toBe(
      'attempt 2 began at 50 ms, before attempt 1 ended at 5000 ms',
    );
  });

  it('REJECTS a start sooner than a valid hint; a hint above the ceiling is cut to it', () => {
    const rules: ScheduleRules = { ...FAST, maxRetryAfter: 10_000 };
    expect(scheduleViolations(trace([...refused([0], 2000), ...refused([1000])]), rules)[0]).toMatch(
      /^attempt 2 at 1000 ms: .*under 2000 ms: the server's hint of 2000 ms/,
    );
    expect(scheduleViolations(trace([...refused([0], 1e30), ...refused([10_000])]), rules)).toEqual([]);
    for (const ignored of [0, -5, Number.NaN, 'soon']) {
      expect(scheduleViolations(trace(refused([0, 100], ignored)), rules)).toEqual([]);
    }
  });

  it('REJECTS a wait longer than the cap or the hint ceiling, also a trailing one with no attempt after it', () => {
    // The default ceiling for gRPC 100 ms (cap 120 s, jitter 0.2) is 144 s.
    const park = trace(refused([0], 1e30), 2 ** 31 - 1);
    expect(scheduleViolations(park, FAST)).toEqual([
      'no attempt in the 2147483647 ms after attempt 1 ended (failed) at 0 ms; no wait may exceed 144001 ms',
    ]);
    expect(scheduleViolations(trace(refused([0], 1e30), 144_000), FAST)).toEqual([]);
    const late = scheduleViolations(trace(refused([0, 150_000])), FAST);
    expect(late).toEqual([
      'attempt 2 at 150000 ms: 150000 ms after attempt 1 ended (failed); no wait may exceed 144001 ms',
    ]);
    // reconnectSpread lengthens the longest allowed wait.
    expect(scheduleViolations(trace(refused([0, 150_000])), { ...FAST, reconnectSpread: 10_000 })).toEqual([]);
  });

  it('REJECTS starts faster than the floor on attempt starts (5 back to back, then one per 100 ms)', () => {
    const zero: ScheduleRules = { backoff: constantBackoff(0), minUptime: 5000 };
    expect(scheduleViolations(trace(refused([0, 0, 0, 0, 0, 100, 200])), zero)).toEqual([]);
    expect(scheduleViolations(trace(refused([0, 0, 0, 0, 0, 0])), zero)[0]).toBe(
      'attempt 6 at 0 ms: the floor on attempt starts (5 back to back, then one per 100 ms) allowed it no sooner than 100 ms',
    );
    expect(
      scheduleViolations(trace(refused([0, 0, 0, 0, 0, 0])), { ...zero, attemptSpacing: { interval: 0 } }),
    ).toEqual([]);
  });
});

describe('connection-schedule: wakes (online, the page shown) and offline spells', () => {
  const SLOW: ScheduleRules = { backoff: constantBackoff(60_000), minUptime: 5000 };

  it('a wake during a wait allows the next start at once and restarts the cycle; without it, REJECTED', () => {
    const woken = { ...trace(refused([0, 1000, 61_000])), wakes: [1000] };
    expect(scheduleViolations(woken, SLOW)).toEqual([]);
    expect(scheduleViolations(trace(refused([0, 1000])), SLOW)[0]).toMatch(/^attempt 2 at 1000 ms: .*under 60000 ms/);
    // The wake restarted the cycle once: the attempt after the woken one waits its backoff again.
    expect(scheduleViolations({ ...trace(refused([0, 905, 2000])), wakes: [900] }, SLOW)[0]).toMatch(
      /^attempt 3 at 2000 ms: 1095 ms after attempt 2 began/,
    );
  });

  it("REJECTS a woken start before the server's hint, and a wake before the attempt ended", () => {
    const early = { ...trace([...refused([0], 30_000), ...refused([1000])]), wakes: [1000] };
    expect(scheduleViolations(early, SLOW)[0]).toMatch(/^attempt 2 at 1000 ms: .*the server's hint of 30000 ms/);
    const hinted = { ...trace([...refused([0], 30_000), ...refused([30_000])]), wakes: [1000] };
    expect(scheduleViolations(hinted, SLOW)).toEqual([]);
    const inFlight: TracedAttempt[] = [{ start: 0, end: { kind: 'failed', at: 500 } }, ...refused([1000])];
    expect(scheduleViolations({ ...trace(inFlight), wakes: [400] }, SLOW)[0]).toMatch(/^attempt 2 at 1000 ms/);
  });

  it('REJECTS a start while offline; a wait is measured from the end of the spell it ran into', () => {
    const spell = { from: 500, to: 400_000 };
    const online = { ...trace(refused([0, 400_000])), wakes: [400_000], offline: [spell] };
    expect(scheduleViolations(online, SLOW)).toEqual([]);
    expect(scheduleViolations({ ...online, wakes: [] }, SLOW)).toEqual([]);
    expect(scheduleViolations({ ...trace(refused([0, 200_000])), offline: [spell] }, SLOW)).toEqual([
      'attempt 2 at 200000 ms: while offline (from 500 ms to 400000 ms)',
    ]);
    const late = { ...trace(refused([0, 600_000])), offline: [spell] };
    expect(scheduleViolations(late, SLOW)).toEqual([
      'attempt 2 at 600000 ms: 200000 ms after back online at 400000 ms; no wait may exceed 120001 ms',
    ]);
    const stillOffline = { ...trace(refused([0]), 900_000), offline: [{ from: 500, to: Infinity }] };
    expect(scheduleViolations(stillOffline, SLOW)).toEqual([]);
  });
});

describe('connection-schedule: races over several addresses', () => {
  const passFailed = (start: number, at: number): TracedAttempt => ({
    start,
    end: { kind: 'failed', at, delegated: true },
  });
  const at = (pass: number, start: number, hint?: unknown) => ({
    pass,
    start,
    end: { kind: 'failed' as const, at: start, hint },
  });

  it('accepts two addresses on their own backoffs, and REJECTS an address retried too soon', () => {
    const race: RaceTrace = {
      passes: [passFailed(0, 0), passFailed(100, 100), passFailed(260, 260)],
      addresses: [
        [at(0, 0), at(1, 100), at(2, 260)],
        [at(0, 0), at(1, 100), at(2, 260)],
      ],
      end: 261,
    };
    expect(raceViolations(race, FAST)).toEqual([]);
    const hasty: RaceTrace = { ...race, addresses: [race.addresses[0] ?? [], [at(0, 0), at(1, 100), at(2, 200)]] };
    expect(raceViolations(hasty, FAST)[0]).toMatch(/^address #2 attempt 3 at 200 ms: 100 ms after .*under 128 ms/);
  });

  it('REJECTS a failed pass that skips an address whose wait is over (a hint that parked it)', () => {
    const race: RaceTrace = {
      passes: [passFailed(0, 0), passFailed(100, 100), passFailed(140_000, 140_000), passFailed(150_000, 150_000)],
      addresses: [[at(0, 0), at(1, 100), at(2, 140_000), at(3, 150_000)], [at(0, 0, 1e30)]],
      end: 150_001,
    };
    expect(raceViolations(race, FAST)).toEqual([
      'address #2: pass 4 failed at 150000 ms without trying it, 150000 ms after its failure at 0 ms; no wait may exceed 144001 ms',
    ]);
  });
});
