/**
 * The breaker's pure decision, table-driven: one row per rule, states reached through real events,
 * effects checked in order. No timers and no clock: the time is a number in each event.
 */
import { describe, expect, it } from 'vitest';
import { constantBackoff, exponentialBackoff, isBackoffPolicyError } from '../../../../src/index.js';
import {
  type BreakerEffect,
  type BreakerEvent,
  type BreakerRules,
  type BreakerState,
  type PermitTicket,
  decide,
  initialBreakerState,
} from '../../../../src/toolkits/retry/breaker/breaker-decision.js';
import { consecutiveFailures } from '../../../../src/toolkits/retry/breaker/consecutive-failures.js';
import { failureRatio } from '../../../../src/toolkits/retry/breaker/failure-ratio.js';
import type { TripStrategy } from '../../../../src/toolkits/retry/breaker/trip-strategy.js';
import { brokenPolicy } from '../../../support/broken-policy.js';

type S = unknown;
const boom = new Error('boom');

function rulesWith(strategy: TripStrategy<S>, breakDuration = constantBackoff(1000)): BreakerRules<S> {
  return { strategy, breakDuration, random: () => 0.5 };
}
const inARow = rulesWith(consecutiveFailures(2));
const exponential = rulesWith(
  consecutiveFailures(1),
  exponentialBackoff({ initialDelay: 1000, multiplier: 2, maxDelay: 8000, jitter: 'none' }),
);
const ratio = rulesWith(failureRatio({ failureRatio: 0.5, minimumThroughput: 4, window: 1000 }));

/** Feeds events one after another; the last transition, and the state it left. */
function run(
  rules: BreakerRules<S>,
  events: readonly ((m: BreakerState<S>) => BreakerEvent)[],
  start?: BreakerState<S>,
) {
  let state = start ?? initialBreakerState(rules.strategy, 0);
  let last = { state, effects: [] as readonly BreakerEffect[], detail: '' };
  for (const event of events) {
    last = decide(state, event(state), rules);
    state = last.state;
  }
  return last;
}

const current = (m: BreakerState<S>, probe = false): PermitTicket => ({ generation: m.generation, probe });
const fail =
  (now = 0, counted = true) =>
  (m: BreakerState<S>): BreakerEvent => ({
    type: 'failed',
    permit: current(m, m.snapshot.state === 'half-open'),
    counted,
    error: boom,
    now,
  });
const succeed =
  (now = 0) =>
  (m: BreakerState<S>): BreakerEvent => ({
    type: 'succeeded',
    permit: current(m, m.snapshot.state === 'half-open'),
    now,
  });
/** An event that carries nothing but its time. */
const at = (type: 'tick' | 'acquire' | 'isolate' | 'reset', now: number) => (): BreakerEvent => ({ type, now });
const elapsed =
  (now: number) =>
  (m: BreakerState<S>): BreakerEvent => ({ type: 'break-elapsed', generation: m.generation, now });

const types = (effects: readonly BreakerEffect[]): string[] => effects.map((e) => e.type);

/** A breaker opened by two failures in a row at 0 (until 1000), then half-open at 1000. */
const opened = run(inARow, [fail(), fail()]).state;
const halfOpen = run(inARow, [elapsed(1000)], opened).state;

describe('decide(): closed', () => {
  it.each([
    { rule: 'one failure short of the run stays closed', events: [fail()], state: 'closed', effects: [] },
    {
      rule: 'the consecutive threshold opens it for the break, counts, arms the timer, emits, shares',
      events: [fail(), fail()],
      state: 'open',
      effects: ['count-open', 'arm-timer', 'emit', 'persist'],
    },
    { rule: 'a success ends the run', events: [fail(), succeed(), fail()], state: 'closed', effects: [] },
    {
      rule: 'an uncounted failure does not extend the run',
      events: [fail(), fail(0, false)],
      state: 'closed',
      effects: [],
    },
  ])('$rule', ({ events, state, effects }) => {
    const t = run(inARow, events);
    expect(t.state.snapshot.state).toBe(state);
    expect(types(t.effects)).toEqual(effects);
  });

  it('opening: until = now + the break, opens counted, lastError the failure, shared with the store', () => {
    const t = run(inARow, [fail(10), fail(20)]);
    expect(t.state.snapshot).toEqual({ state: 'open', since: 20, until: 1020, opens: 1, lastError: boom });
    expect(t.effects).toContainEqual({ type: 'arm-timer', at: 1020, generation: t.state.generation });
    expect(t.effects.at(-1)).toEqual({ type: 'persist', shared: { state: 'open', until: 1020, opens: 1 } });
    expect(t.detail).toMatch(/^closed -> open/);
  });

  it.each([
    {
      rule: 'below the minimum calls, even 100 % failures stay closed',
      events: [fail(), fail(), fail()],
      state: 'closed',
    },
    {
      rule: 'at the minimum calls and the ratio it opens',
      events: [succeed(), succeed(), fail(), fail()],
      state: 'open',
    },
    { rule: 'under the ratio it stays closed', events: [succeed(), succeed(), succeed(), fail()], state: 'closed' },
    {
      rule: 'calls that slid out of the window no longer count',
      events: [fail(0), fail(0), fail(0), fail(1500)],
      state: 'closed',
    },
  ])('ratio: $rule', ({ events, state }) => {
    expect(run(ratio, events).state.snapshot.state).toBe(state);
  });

  it('a broken break policy leaves it open with no timer until reset(), saying why', () => {
    const rules = rulesWith(
      consecutiveFailures(1),
      brokenPolicy(() => Number.NaN),
    );
    const t = run(rules, [fail()]);
    expect(t.state.snapshot).toMatchObject({ state: 'open', until: Infinity });
    expect(isBackoffPolicyError((t.state.snapshot as { lastError: unknown }).lastError)).toBe(true);
    expect(types(t.effects)).toEqual(['count-open', 'emit', 'persist']);
    expect(run(rules, [at('tick', 1e12)], t.state).state).toBe(t.state);
  });
});

describe('decide(): open -> half-open after the open period', () => {
  it.each([
    { rule: 'the timer of this open period ends it', event: elapsed(1000), state: 'half-open' },
    { rule: 'reading the state at until ends it', event: at('tick', 1000), state: 'half-open' },
    { rule: 'reading the state before until does not', event: at('tick', 999), state: 'open' },
    {
      rule: 'a timer of an earlier state is ignored',
      event: (m: BreakerState<S>): BreakerEvent => ({ type: 'break-elapsed', generation: m.generation - 1, now: 1000 }),
      state: 'open',
    },
  ])('$rule', ({ event, state }) => {
    const t = run(inARow, [event], opened);
    expect(t.state.snapshot.state).toBe(state);
    if (state === 'half-open') {
      expect(t.state.snapshot).toEqual({ state: 'half-open', since: 1000, opens: 1 });
      expect(t.effects).toEqual([{ type: 'clear-timer' }, { type: 'emit', snapshot: t.state.snapshot }]);
    } else expect(t.state).toBe(opened);
  });

  it('an open breaker refuses with until and what opened it', () => {
    const t = run(inARow, [at('acquire', 500)], opened);
    expect(t.effects).toEqual([{ type: 'refuse', until: 1000, cause: boom }]);
    expect(t.detail).toBe('refused: open for another 500 ms');
  });

  it('a call asking at until ends the break and is the probe', () => {
    const t = run(inARow, [at('acquire', 1000)], opened);
    expect(t.state.snapshot.state).toBe('half-open');
    expect(types(t.effects)).toEqual(['clear-timer', 'emit', 'admit']);
    expect(t.effects.at(-1)).toEqual({ type: 'admit', permit: { generation: t.state.generation, probe: true } });
  });
});

describe('decide(): half-open', () => {
  it.each([
    {
      rule: 'the probe succeeding closes it and shares that',
      events: [at('acquire', 1000), succeed(1100)],
      state: 'closed',
    },
    { rule: 'the probe failing opens it again', events: [at('acquire', 1000), fail(1100)], state: 'open' },
    {
      rule: 'a probe failing with an uncounted error frees the slot',
      events: [at('acquire', 1000), fail(1100, false), at('acquire', 1100)],
      state: 'half-open',
    },
  ])('$rule', ({ events, state }) => {
    expect(run(inARow, events, halfOpen).state.snapshot.state).toBe(state);
  });

  it('probes limit: one probe at a time; the next call is refused, due now; a cancel frees the slot', () => {
    const taken = run(inARow, [at('acquire', 1000)], halfOpen);
    expect(taken.state.probesInFlight).toBe(1);
    const refused = run(inARow, [at('acquire', 1001)], taken.state);
    expect(refused.effects).toEqual([{ type: 'refuse', until: 1001, cause: undefined }]);
    const freed = run(
      inARow,
      [(m) => ({ type: 'cancelled', permit: current(m, true), now: 1002 }), at('acquire', 1002)],
      taken.state,
    );
    expect(freed.effects).toEqual([{ type: 'admit', permit: { generation: halfOpen.generation, probe: true } }]);
  });

  it('a successful probe resets the break backoff and the trip rule; failed ones step it', () => {
    let m = run(exponential, [fail(0)]).state;
    expect(m.snapshot).toMatchObject({ state: 'open', until: 1000, opens: 1 });
    m = run(exponential, [at('acquire', 1000), fail(1000)], m).state;
    expect(m.snapshot).toMatchObject({ state: 'open', until: 3000, opens: 2 });
    const closed = run(exponential, [at('acquire', 3000), succeed(3000)], m);
    expect(closed.state).toMatchObject({
      snapshot: { state: 'closed', since: 3000, opens: 0 },
      breakBackoff: undefined,
    });
    expect(closed.state.trip).toBe(exponential.strategy.initial());
    expect(closed.effects.at(-1)).toEqual({ type: 'persist', shared: { state: 'closed' } });
    expect(run(exponential, [fail(3000)], closed.state).state.snapshot).toMatchObject({ until: 4000, opens: 1 });
  });
});

describe('decide(): late calls (admitted before the last change)', () => {
  const ticket = run(inARow, [() => ({ type: 'acquire', now: 0 })]).state.generation;
  it.each([
    { rule: 'a late failure does not move an open breaker', outcome: 'failed' as const },
    { rule: 'a late success does not close an open breaker', outcome: 'succeeded' as const },
  ])('$rule', ({ outcome }) => {
    const permit = { generation: ticket, probe: false };
    const event: BreakerEvent =
      outcome === 'failed'
        ? { type: 'failed', permit, counted: true, error: boom, now: 10 }
        : { type: 'succeeded', permit, now: 10 };
    const t = decide(opened, event, inARow);
    expect(t.state.snapshot).toBe(opened.snapshot);
    expect(t.effects).toEqual([]);
  });

  it('a late failure counts in the ratio window of the next closed period', () => {
    const early = initialBreakerState(ratio.strategy, 0);
    const permit = current(early);
    const reopened = run(ratio, [at('isolate', 0), at('reset', 0), fail(), fail(), fail()]).state;
    expect(reopened.snapshot.state).toBe('closed');
    const t = decide(reopened, { type: 'failed', permit, counted: true, error: boom, now: 0 }, ratio);
    expect(t.state.snapshot.state).toBe('closed'); // late: counted, but it cannot open the breaker
    expect(run(ratio, [fail()], t.state).state.snapshot.state).toBe('open');
  });
});

describe('decide(): isolate, reset and the shared store', () => {
  it('isolate() opens until reset(), shares that, and stops following the store', () => {
    const isolated = run(inARow, [at('isolate', 5)]);
    expect(isolated.state).toMatchObject({ isolated: true, snapshot: { state: 'open', until: Infinity, opens: 1 } });
    expect(types(isolated.effects)).toEqual(['emit', 'persist']);
    const ignored = decide(isolated.state, { type: 'shared', shared: { state: 'closed' }, now: 6 }, inARow);
    expect(ignored.state).toBe(isolated.state);
    expect(ignored.detail).toMatch(/^ignored: isolated/);
    const reset = run(inARow, [at('reset', 7)], isolated.state);
    expect(reset.state).toMatchObject({ isolated: false, snapshot: { state: 'closed', since: 7, opens: 0 } });
    expect(reset.effects.at(-1)).toEqual({ type: 'persist', shared: { state: 'closed' } });
  });

  it.each([
    {
      rule: 'a state restored from the store opens a closed breaker until the shared until, without sharing it back',
      from: 'closed',
      shared: { state: 'open', until: 800, opens: 3 } as const,
      state: 'open',
      effects: ['arm-timer', 'emit'],
    },
    {
      rule: 'a shared break that has already ended is ignored',
      from: 'closed',
      shared: { state: 'open', until: 100, opens: 3 } as const,
      state: 'closed',
      effects: [],
      detail: 'ignored: a shared break that ended 0 ms ago',
    },
    {
      rule: 'a shared break ending sooner than this one is ignored',
      from: 'open',
      shared: { state: 'open', until: 900, opens: 3 } as const,
      state: 'open',
      effects: [],
      detail: 'ignored: already open for another 900 ms',
    },
    {
      rule: 'a shared break ending later extends this one',
      from: 'open',
      shared: { state: 'open', until: 2000, opens: 3 } as const,
      state: 'open',
      effects: ['clear-timer', 'arm-timer', 'emit'],
    },
    {
      rule: 'a shared close closes it, without sharing it back',
      from: 'open',
      shared: { state: 'closed' } as const,
      state: 'closed',
      effects: ['clear-timer', 'emit'],
    },
    {
      rule: 'a shared close of a closed breaker is a no-op',
      from: 'closed',
      shared: { state: 'closed' } as const,
      state: 'closed',
      effects: [],
    },
  ])('$rule', ({ from, shared, state, effects, detail }) => {
    const m = from === 'open' ? opened : initialBreakerState(inARow.strategy, 0);
    const t = decide(m, { type: 'shared', shared, now: 100 }, inARow);
    expect(t.state.snapshot.state).toBe(state);
    expect(types(t.effects)).toEqual(effects);
    if (detail !== undefined) expect(t.detail).toBe(detail);
    if (shared.state === 'open' && effects.length > 0)
      expect(t.state.snapshot).toEqual({
        state: 'open',
        since: 100,
        until: shared.until,
        opens: 3,
        lastError: undefined,
      });
  });
});
