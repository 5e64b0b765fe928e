import { describe, expect, it } from 'vitest';
import { DEFAULT_ATTEMPT_SPACING } from '../../../../src/core/index.js';
import {
  isDeadlineExceededError,
  isFailoverError,
  permanentFailure,
  transient,
} from '../../../../src/toolkits/retry/index.js';
import {
  type CallEffect,
  type CallEvent,
  type CallState,
  type FailoverRules,
  HEDGE_LOST,
  type ProviderView,
  blockedReason,
  decide,
  dueAt,
  initialCallState,
} from '../../../../src/toolkits/retry/failover/failover-decision.js';

const RULES: FailoverRules = {
  names: ['a', 'b'],
  maxAttempts: 2,
  maxCopies: 1,
  hedgeDelay: Infinity,
  deadlineMs: 1000,
  spacing: DEFAULT_ATTEMPT_SPACING,
};
const HEDGING: FailoverRules = { ...RULES, hedgeDelay: 100, maxCopies: 2 };

const free: ProviderView = { breaker: undefined, nextEligibleAt: -Infinity, retryRefused: false };
const open = (until: number): ProviderView => ({ ...free, breaker: { state: 'open', until } });
const backingOff = (until: number): ProviderView => ({ ...free, nextEligibleAt: until });
const refusedBudget: ProviderView = { ...free, retryRefused: true };

const look = (now: number, providers: readonly ProviderView[] = [free, free]) => ({ now, providers });

/** The state after `events`, from a new call at time 0 with a 1000 ms deadline. */
function after(events: readonly CallEvent<string>[], rules: FailoverRules = RULES): CallState {
  let s = initialCallState(rules.deadlineMs, [0, 1], rules.names.length);
  for (const e of events) s = decide(s, e, rules).state;
  return s;
}

const start: CallEvent<string> = { type: 'start', ...look(0) };
const grantA: CallEvent<string> = { type: 'granted', provider: 0, ...look(0) };
/** One attempt on `a` in flight, started at 0. */
const aInFlight = [start, grantA];
const failA = (verdict = transient('connection refused')): CallEvent<string> => ({
  type: 'failed',
  attempt: 1,
  error: new Error('boom'),
  kind: 'failed',
  verdict,
});
const penalizedA = (now: number, providers?: readonly ProviderView[]): CallEvent<string> => ({
  type: 'penalized',
  provider: 0,
  kind: 'failed',
  detail: 'boom after 5 ms',
  error: new Error('boom'),
  ...look(now, providers),
});

/** What every settling call runs first: no wait, no hedge, no deadline, no abort listener. */
const CLEANUP = ['clear-wait', 'cancel-hedge', 'clear-deadline', 'unlisten-abort'] as const;
/** A give-up with no attempt in flight: the cleanup, then the call publishes, emits and rejects. */
const GIVE_UP = [...CLEANUP, 'publish', 'emit', 'reject'] as const;
/** The effects of a start before the first provider is looked at. */
const STARTED = ['arm-deadline', 'listen-abort', 'clear-wait'] as const;

interface Row {
  readonly rule: string;
  readonly state: CallState;
  readonly event: CallEvent<string>;
  readonly rules?: FailoverRules;
  /** The effects' types, in order. */
  readonly effects: readonly CallEffect<string>['type'][];
  /** Effects (by position) that must match these objects. */
  readonly match?: Readonly<Record<number, object>>;
  /** What the next state must match. */
  readonly next?: object;
}

const rows: Row[] = [
  {
    rule: 'a call starts: arms the deadline, listens for abort, asks the first provider for a permit',
    state: after([]),
    event: start,
    effects: [...STARTED, 'acquire'],
    match: { 0: { at: 1000 }, 3: { provider: 0 } },
  },
  {
    rule: 'no deadline: no deadline timer',
    state: initialCallState(Infinity, [1, 0], 2),
    event: start,
    effects: ['listen-abort', 'clear-wait', 'acquire'],
    match: { 2: { provider: 1 } },
  },
  {
    rule: 'a granted permit starts the attempt; hedging off: nothing more',
    state: after([start]),
    event: grantA,
    effects: ['launch', 'emit', 'publish', 'arm-attempt-timer', 'call', 'cancel-hedge'],
    match: {
      0: { flight: { attempt: 1, provider: 0, begun: 0 }, retry: false },
      1: { event: { type: 'attempt', attempt: 1 } },
    },
    next: { attempts: 1, tries: [1, 0], hedgeDue: false, pump: undefined },
  },
  {
    rule: 'hedging on: a start arms the hedge timer',
    rules: HEDGING,
    state: after([start], HEDGING),
    event: grantA,
    effects: ['launch', 'emit', 'publish', 'arm-attempt-timer', 'call', 'cancel-hedge', 'arm-hedge'],
    match: { 6: { after: 100 } },
    next: { hedgeArmed: true },
  },
  {
    rule: 'the hedge fires: the next provider is asked beside the silent one',
    rules: HEDGING,
    state: after(aInFlight, HEDGING),
    event: { type: 'hedge-fired', ...look(100) },
    effects: ['clear-wait', 'acquire'],
    match: { 1: { provider: 1 } },
    next: { hedgeDue: true, hedgeArmed: false },
  },
  {
    rule: 'hedging on, maxCopies in flight: no more starts and no new hedge',
    rules: { ...HEDGING, maxCopies: 2 },
    state: after(
      [...aInFlight, { type: 'hedge-fired', ...look(100) }, { type: 'granted', provider: 1, ...look(100) }],
      HEDGING,
    ),
    event: { type: 'hedge-fired', ...look(200) },
    effects: ['clear-wait'],
  },
  {
    rule: 'breaker open: the provider is skipped (noted) and the next one asked',
    state: after([]),
    event: { type: 'start', ...look(0, [open(500), free]) },
    effects: [...STARTED, 'acquire'],
    match: { 3: { provider: 1 } },
    next: { outcomes: [{ provider: 0, outcome: 'skipped', detail: 'circuit open for another 500 ms' }] },
  },
  {
    rule: 'breaker refusal (half-open, its probe out): skipped, the next one asked',
    state: after([start]),
    event: { type: 'refused', provider: 0, ...look(0) },
    effects: ['acquire'],
    match: { 0: { provider: 1 } },
    next: { outcomes: [{ provider: 0, outcome: 'skipped', detail: 'circuit half-open, its probe in flight' }] },
  },
  {
    rule: 'breaker refusal and no other provider: wait for that breaker to change (and the deadline)',
    state: after([{ type: 'start', ...look(0, [free, open(5000)]) }]),
    event: { type: 'refused', provider: 0, ...look(0, [free, open(5000)]) },
    effects: ['set-wait'],
    match: { 0: { at: undefined, watch: [0] } },
  },
  {
    rule: 'provider backing off (backoff or Retry-After): wait until it is due',
    state: after([]),
    event: { type: 'start', ...look(0, [backingOff(300), backingOff(400)]) },
    effects: [...STARTED, 'set-wait'],
    match: { 3: { at: 300, watch: [] } },
    next: { outcomes: [{ detail: 'backing off for another 300 ms' }, { detail: 'backing off for another 400 ms' }] },
  },
  {
    rule: 'deadline: no provider due before it, the call gives up at once',
    state: after([]),
    event: { type: 'start', ...look(0, [backingOff(1000), open(2000)]) },
    effects: [...STARTED, ...GIVE_UP],
    match: { 8: { event: { type: 'give-up', reason: 'deadline' } } },
    next: { settled: true },
  },
  {
    rule: 'deadline fires: the attempt in flight is cut with a DeadlineExceededError',
    state: after(aInFlight),
    event: { type: 'deadline-fired' },
    effects: [...CLEANUP, 'end-flight', 'publish', 'emit', 'reject'],
    match: { 4: { attempt: 1 }, 6: { event: { type: 'give-up', attempt: 1, reason: 'deadline' } } },
    next: { settled: true, flights: [], outcomes: [{ provider: 0, outcome: 'cut' }] },
  },
  {
    rule: 'abort: attempts in flight are aborted with the reason, the call rejects with it',
    state: after(aInFlight),
    event: { type: 'aborted', reason: 'stop' },
    effects: [...CLEANUP, 'end-flight', 'publish', 'reject'],
    match: { 4: { reason: 'stop' }, 6: { error: 'stop' } },
    next: { settled: true, outcomes: [] },
  },
  {
    rule: 'success: rewards the provider, cuts the hedges, resolves',
    rules: HEDGING,
    state: after(
      [...aInFlight, { type: 'hedge-fired', ...look(100) }, { type: 'granted', provider: 1, ...look(100) }],
      HEDGING,
    ),
    event: { type: 'succeeded', attempt: 2, value: 'from b' },
    effects: ['leave', 'reward', 'emit', ...CLEANUP, 'end-flight', 'publish', 'resolve'],
    match: {
      1: { attempt: 2 },
      2: { event: { type: 'success', attempt: 2 } },
      7: { attempt: 1, reason: new Error(HEDGE_LOST) },
      9: { value: 'from b' },
    },
    next: { settled: true },
  },
  {
    rule: 'permanent error: the call rejects with it at once; the breaker permit is cancelled',
    state: after(aInFlight),
    event: failA(permanentFailure('HTTP 400 is not a retryable status')),
    effects: ['leave', 'cancel-permit', 'emit', ...CLEANUP, 'publish', 'reject'],
    match: {
      2: { event: { type: 'permanent', reason: 'HTTP 400 is not a retryable status' } },
      8: { error: new Error('boom') },
    },
  },
  {
    rule: 'transient error: the provider is charged for it',
    state: after(aInFlight),
    event: failA(),
    effects: ['leave', 'penalize'],
    match: { 1: { attempt: 1, kind: 'failed', reason: 'connection refused' } },
    next: { flights: [], settled: false },
  },
  {
    rule: 'charged: the failure is noted and the next provider asked at once',
    state: after([...aInFlight, failA()]),
    event: penalizedA(5, [backingOff(1000), free]),
    effects: ['publish', 'clear-wait', 'acquire'],
    match: { 2: { provider: 1 } },
    next: { hedgeDue: true, outcomes: [{ provider: 0, outcome: 'failed', detail: 'boom after 5 ms' }] },
  },
  {
    rule: 'a broken backoff policy stops the call with its error',
    state: after([...aInFlight, failA()]),
    event: { ...penalizedA(5), policyError: new RangeError('bad delay') } as CallEvent<string>,
    effects: ['publish', ...CLEANUP, 'publish', 'reject'],
    match: { 6: { error: new RangeError('bad delay') } },
  },
  {
    rule: 'all attempts used: give up (attempts)',
    rules: { ...RULES, maxAttempts: 1 },
    state: after([...aInFlight, failA()], { ...RULES, maxAttempts: 1 }),
    event: penalizedA(5),
    effects: ['publish', 'clear-wait', ...GIVE_UP],
    match: { 7: { event: { type: 'give-up', reason: 'attempts', attempt: 1 } } },
  },
  {
    rule: 'budget refusal: a second attempt on the provider is skipped; no provider left: give up',
    rules: { ...RULES, names: ['a'] },
    state: (() => {
      const r = { ...RULES, names: ['a'] };
      let s = initialCallState(1000, [0], 1);
      for (const e of [start, grantA, failA()]) s = decide(s, e, r).state;
      return s;
    })(),
    event: penalizedA(5, [refusedBudget]),
    effects: ['publish', 'clear-wait', ...GIVE_UP],
    match: { 7: { event: { type: 'give-up', reason: 'attempts' } } },
  },
  {
    rule: 'all providers exhausted (never due again): give up (no-provider)',
    state: after([]),
    event: { type: 'start', ...look(0, [backingOff(Infinity), refusedBudget]) },
    effects: [...STARTED, ...GIVE_UP],
  },
  {
    rule: 'the floor on attempt starts: a burst used up waits for the floor',
    rules: { ...RULES, maxAttempts: 10, spacing: { burst: 1, interval: 100 } },
    state: after([...aInFlight, failA()], { ...RULES, maxAttempts: 10, spacing: { burst: 1, interval: 100 } }),
    event: penalizedA(5),
    effects: ['publish', 'clear-wait', 'set-wait'],
    match: { 2: { at: 100, watch: [] } },
  },
  {
    rule: 'a late answer from an attempt that has left is a no-op',
    state: after([...aInFlight, failA()]),
    event: { type: 'succeeded', attempt: 1, value: 'late' },
    effects: [],
  },
  {
    rule: 'after the call settled: events are no-ops, a granted permit goes back',
    state: after([...aInFlight, { type: 'aborted', reason: 'stop' }]),
    event: { type: 'granted', provider: 1, ...look(10) },
    effects: ['drop-permit'],
    match: { 0: { provider: 1 } },
  },
];

describe('failover decide(): one row per rule', () => {
  it.each(rows)('$rule', ({ state, event, rules, effects, match, next }) => {
    const d = decide(state, event, rules ?? RULES);
    expect(d.effects.map((e) => e.type)).toEqual(effects);
    for (const [at, shape] of Object.entries(match ?? {})) expect(d.effects[Number(at)]).toMatchObject(shape);
    if (next !== undefined) expect(d.state).toMatchObject(next);
  });

  it('a no-op returns the same state object', () => {
    const settled = after([...aInFlight, { type: 'aborted', reason: 'stop' }]);
    expect(decide(settled, { type: 'deadline-fired' }, RULES).state).toBe(settled);
  });

  it('the deadline rejects with FailoverError(deadline) whose cut note names the DeadlineExceededError', () => {
    const d = decide(after(aInFlight), { type: 'deadline-fired' }, RULES);
    const cut = d.effects.find((e) => e.type === 'end-flight');
    expect(cut?.type === 'end-flight' && isDeadlineExceededError(cut.reason)).toBe(true);
    const rejected = d.effects.at(-1);
    const error = rejected?.type === 'reject' ? rejected.error : undefined;
    expect(isFailoverError(error)).toBe(true);
    expect(error).toMatchObject({
      reason: 'deadline',
      outcomes: [
        { provider: 'a', attempts: 1, outcome: 'cut' },
        { provider: 'b', outcome: 'not-tried' },
      ],
    });
  });

  it('is pure: the same inputs give equal outputs, and the input state is not changed', () => {
    const s = after(aInFlight);
    const copy = structuredClone(s);
    const one = decide(s, failA(), RULES);
    const two = decide(s, failA(), RULES);
    expect(one.effects.map((e) => e.type)).toEqual(two.effects.map((e) => e.type));
    expect(one.state).toEqual(two.state);
    expect(s).toEqual(copy);
  });
});

describe('failover selection helpers', () => {
  const s = after(aInFlight);
  it.each([
    { why: 'in flight', provider: 0, view: free, expected: 'in flight' },
    { why: 'breaker open', provider: 1, view: open(250), expected: 'circuit open for another 250 ms' },
    { why: 'backing off', provider: 1, view: backingOff(99.6), expected: 'backing off for another 100 ms' },
    { why: 'budget refusal', provider: 1, view: refusedBudget, expected: 'retry budget exhausted' },
    { why: 'free', provider: 1, view: free, expected: undefined },
  ])('blockedReason: $why', ({ provider, view, expected }) => {
    expect(blockedReason(s, provider, view, 0)).toBe(expected);
  });

  it('dueAt: the later of the backoff and the open breaker', () => {
    expect(dueAt(free)).toBe(-Infinity);
    expect(dueAt({ ...open(300), nextEligibleAt: 200 })).toBe(300);
    expect(dueAt({ ...open(300), nextEligibleAt: 400 })).toBe(400);
  });
});
