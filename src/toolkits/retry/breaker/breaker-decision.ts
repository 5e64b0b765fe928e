/**
 * The circuit breaker's decision as a pure function: `decide(state, event, rules) -> { state, effects }`.
 * It reads no clock and starts nothing: the time arrives in each event, and the effects (admit or
 * refuse a call, arm or clear the break timer, publish the state, share it through the store, count
 * for the meter) are data that `circuitBreaker()` carries out. When the breaker opens is the
 * {@link TripStrategy}'s business; this module runs either rule the same way. Events that do not apply
 * to the current state are no-ops whose `detail` says why.
 * @module
 */
import type { Backoff, BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { stepBackoff } from '../../../backoff/backoff-step.js';
import type { SharedBreakerState } from './breaker-state-store.js';
import { openFor } from './broken-circuit-error.js';
import { formatDuration } from '../../../internal/format-duration.js';
import type { CallOutcome, TripStrategy } from './trip-strategy.js';

/** A breaker's state: `until` says when an open breaker lets a probe through. */
export type BreakerSnapshot =
  | { readonly state: 'closed'; readonly since: number; readonly opens: number }
  | {
      readonly state: 'open';
      readonly since: number;
      readonly until: number;
      readonly opens: number;
      readonly lastError: unknown;
    }
  | { readonly state: 'half-open'; readonly since: number; readonly opens: number };

/** How many probes a half-open breaker lets through at a time (Polly's and cockatiel's rule: one). */
export const MAX_PROBES = 1;

/** The breaker's whole state: the public snapshot plus the bookkeeping behind it. */
export interface BreakerState<S> {
  readonly snapshot: BreakerSnapshot;
  /**
   * Counts state changes. A permit carries the generation it was issued in: a call that ends in a
   * later one is late, and may count for the trip rule but cannot move the state.
   */
  readonly generation: number;
  /** Probes admitted in this half-open period that have not ended (0 in other states). */
  readonly probesInFlight: number;
  /** The break-duration backoff: its next step sets the next break; undefined after a close. */
  readonly breakBackoff: Backoff | undefined;
  /** Opened by `isolate()`: stays open, deaf to the store, until `reset()`. */
  readonly isolated: boolean;
  /** The trip strategy's own state. */
  readonly trip: S;
}

/** What an admitted call carries back when it ends. */
export interface PermitTicket {
  /** The generation the call was admitted in. */
  readonly generation: number;
  /** Whether the call is a half-open probe. */
  readonly probe: boolean;
}

/** Everything that can happen to a breaker; `now` is the time on the breaker's clock. */
export type BreakerEvent =
  /** The state is read: a break that is due ends. */
  | { readonly type: 'tick'; readonly now: number }
  /** A call asks to be admitted. */
  | { readonly type: 'acquire'; readonly now: number }
  | { readonly type: 'succeeded'; readonly permit: PermitTicket; readonly now: number }
  /** A call failed; `counted` is the classification (`isFailure`): an uncounted failure is no health signal. */
  | {
      readonly type: 'failed';
      readonly permit: PermitTicket;
      readonly counted: boolean;
      readonly error: unknown;
      readonly now: number;
    }
  /** A call was cancelled by its caller: never a failure. */
  | { readonly type: 'cancelled'; readonly permit: PermitTicket; readonly now: number }
  /** The break timer armed in `generation` fired. */
  | { readonly type: 'break-elapsed'; readonly generation: number; readonly now: number }
  | { readonly type: 'isolate'; readonly now: number }
  | { readonly type: 'reset'; readonly now: number }
  /** Another breaker sharing the store opened or closed (or the store held a state at creation). */
  | { readonly type: 'shared'; readonly shared: SharedBreakerState; readonly now: number };

/** Work for the runner, in the order it must be done. */
export type BreakerEffect =
  | { readonly type: 'admit'; readonly permit: PermitTicket }
  /** The call is refused (and counted as such): the data of its `BrokenCircuitError`. */
  | { readonly type: 'refuse'; readonly until: number; readonly cause: unknown }
  /** Count one opening for the meter. */
  | { readonly type: 'count-open' }
  | { readonly type: 'clear-timer' }
  /** Arm the break timer at `at`; when it fires, send `break-elapsed` with `generation`. */
  | { readonly type: 'arm-timer'; readonly at: number; readonly generation: number }
  /** Publish the new snapshot on `state$`. */
  | { readonly type: 'emit'; readonly snapshot: BreakerSnapshot }
  /** Share the decision with the other breakers of this name. */
  | { readonly type: 'persist'; readonly shared: SharedBreakerState };

/** The rules a decision applies. */
export interface BreakerRules<S> {
  /** When a closed breaker opens. */
  readonly strategy: TripStrategy<S>;
  /** The break-duration policy: its next step applies each time the breaker opens on a failure. */
  readonly breakDuration: BackoffPolicy;
  /** The random source for a break-duration policy with jitter. */
  readonly random: RandomSource;
}

/** The outcome of one event. A no-op returns the same `state` object and no effects. */
export interface BreakerTransition<S> {
  readonly state: BreakerState<S>;
  readonly effects: readonly BreakerEffect[];
  readonly detail: string;
}

/** The state of a new breaker: closed since `now`. */
export function initialBreakerState<S>(strategy: TripStrategy<S>, now: number): BreakerState<S> {
  return {
    snapshot: { state: 'closed', since: now, opens: 0 },
    generation: 0,
    probesInFlight: 0,
    breakBackoff: undefined,
    isolated: false,
    trip: strategy.initial(),
  };
}

/**
 * The data of the `BrokenCircuitError` for a call refused in `snapshot` at `now`: an open breaker
 * says when it lets a probe through and what opened it; a busy half-open one is due now.
 */
export function refusalOf(snapshot: BreakerSnapshot, now: number): { readonly until: number; readonly cause: unknown } {
  return snapshot.state === 'open'
    ? { until: snapshot.until, cause: snapshot.lastError }
    : { until: now, cause: undefined };
}

function noop<S>(m: BreakerState<S>, detail: string): BreakerTransition<S> {
  return { state: m, effects: [], detail: `ignored: ${detail}` };
}

/** The same state with new bookkeeping and no change of state (so no effects). */
function keep<S>(m: BreakerState<S>, patch: Partial<BreakerState<S>>, detail: string): BreakerTransition<S> {
  return { state: { ...m, ...patch }, effects: [], detail };
}

function hasTimer(snapshot: BreakerSnapshot): boolean {
  return snapshot.state === 'open' && snapshot.until !== Infinity;
}

/**
 * A change of state: a new generation (calls admitted before it are late), no probe in flight, the
 * break timer cleared and armed again for a new finite break, then the snapshot published.
 */
function enter<S>(
  m: BreakerState<S>,
  snapshot: BreakerSnapshot,
  patch: Partial<Omit<BreakerState<S>, 'snapshot' | 'generation' | 'probesInFlight'>>,
  detail: string,
  before: readonly BreakerEffect[] = [],
  after: readonly BreakerEffect[] = [],
): BreakerTransition<S> {
  const generation = m.generation + 1;
  const state: BreakerState<S> = { ...m, ...patch, snapshot, generation, probesInFlight: 0 };
  const effects: BreakerEffect[] = [...before];
  if (hasTimer(m.snapshot)) effects.push({ type: 'clear-timer' });
  if (snapshot.state === 'open' && snapshot.until !== Infinity)
    effects.push({ type: 'arm-timer', at: snapshot.until, generation });
  effects.push({ type: 'emit', snapshot }, ...after);
  return { state, effects, detail: `${m.snapshot.state} -> ${snapshot.state} (${detail})` };
}

/** Opens on a failure: the break is the next step of the break-duration backoff. */
function open<S>(
  m: BreakerState<S>,
  error: unknown,
  now: number,
  rules: BreakerRules<S>,
  patch: Partial<BreakerState<S>>,
  detail: string,
): BreakerTransition<S> {
  const opens = m.snapshot.opens + 1;
  const step = stepBackoff(rules.breakDuration, m.breakBackoff, rules.random);
  // A broken policy is a programming error: the breaker stays open (no probe) until reset(), and
  // says why in lastError, rather than guessing a break.
  const until = step.ok ? now + step.delay : Infinity;
  return enter(
    m,
    { state: 'open', since: now, until, opens, lastError: step.ok ? error : step.error },
    { ...patch, breakBackoff: step.ok ? step.backoff : m.breakBackoff },
    step.ok
      ? `${detail}; a break of ${formatDuration(step.delay)}`
      : `${detail}; the break policy failed: open until reset()`,
    [{ type: 'count-open' }],
    [{ type: 'persist', shared: { state: 'open', until, opens } }],
  );
}

/** Closes: the break backoff and the trip rule start over; `publish` shares it through the store. */
function close<S>(
  m: BreakerState<S>,
  now: number,
  rules: BreakerRules<S>,
  publish: boolean,
  detail: string,
  patch: Partial<BreakerState<S>> = {},
): BreakerTransition<S> {
  return enter(
    m,
    { state: 'closed', since: now, opens: 0 },
    { ...patch, breakBackoff: undefined, trip: rules.strategy.initial() },
    detail,
    [],
    publish ? [{ type: 'persist', shared: { state: 'closed' } }] : [],
  );
}

/** An open breaker whose break is due at `now` goes half-open; any other state stays. */
function endDueBreak<S>(m: BreakerState<S>, now: number): BreakerTransition<S> {
  const s = m.snapshot;
  if (s.state !== 'open') return noop(m, `${s.state}: no break to end`);
  if (now < s.until) return noop(m, openFor(s.until, now));
  return enter(m, { state: 'half-open', since: now, opens: s.opens }, {}, 'the break is over');
}

function acquire<S>(m: BreakerState<S>, now: number): BreakerTransition<S> {
  const due = endDueBreak(m, now);
  const next = due.state;
  const s = next.snapshot;
  const ended = due.effects;
  if (s.state === 'open' || (s.state === 'half-open' && next.probesInFlight >= MAX_PROBES)) {
    const refusal = refusalOf(s, now);
    return {
      state: next,
      effects: [...ended, { type: 'refuse', until: refusal.until, cause: refusal.cause }],
      detail: s.state === 'open' ? `refused: ${openFor(s.until, now)}` : 'refused: the probe is in flight',
    };
  }
  const probe = s.state === 'half-open';
  const state = probe ? { ...next, probesInFlight: next.probesInFlight + 1 } : next;
  return {
    state,
    effects: [...ended, { type: 'admit', permit: { generation: next.generation, probe } }],
    detail: probe ? 'admitted the probe' : 'admitted',
  };
}

function isLate(m: BreakerState<unknown>, permit: PermitTicket): boolean {
  return permit.generation !== m.generation;
}

/** A current probe that proves nothing (cancelled, or an uncounted error) frees its slot. */
function freeProbe<S>(m: BreakerState<S>, permit: PermitTicket, detail: string): BreakerTransition<S> {
  if (!permit.probe || isLate(m, permit)) return noop(m, `${detail}; not a current probe`);
  return keep(m, { probesInFlight: Math.max(0, m.probesInFlight - 1) }, `${detail}; the probe's slot is free`);
}

function record<S>(m: BreakerState<S>, outcome: CallOutcome, now: number, rules: BreakerRules<S>): S {
  return rules.strategy.record(m.trip, outcome, now);
}

function succeeded<S>(
  m: BreakerState<S>,
  permit: PermitTicket,
  now: number,
  rules: BreakerRules<S>,
): BreakerTransition<S> {
  const late = isLate(m, permit);
  const trip = record(m, { kind: 'success', late }, now, rules);
  if (late) return keep(m, { trip }, 'a late success: counted, the state stays');
  if (permit.probe) return close(m, now, rules, true, 'the probe succeeded');
  return keep(m, { trip }, 'a success');
}

function failed<S>(
  m: BreakerState<S>,
  event: Extract<BreakerEvent, { type: 'failed' }>,
  rules: BreakerRules<S>,
): BreakerTransition<S> {
  const { permit, now } = event;
  if (!event.counted) return freeProbe(m, permit, 'a failure that does not count');
  const late = isLate(m, permit);
  const trip = record(m, { kind: 'failure', late }, now, rules);
  if (late) return keep(m, { trip }, 'a late failure: counted, the state stays');
  if (permit.probe) return open(m, event.error, now, rules, { trip }, 'the probe failed');
  // A current call that is not a probe was admitted in this closed period.
  if (rules.strategy.shouldTrip(trip, now)) return open(m, event.error, now, rules, { trip }, 'the trip rule tripped');
  return keep(m, { trip }, 'a failure; the trip rule holds');
}

function breakElapsed<S>(m: BreakerState<S>, generation: number, now: number): BreakerTransition<S> {
  const s = m.snapshot;
  if (generation !== m.generation || s.state !== 'open') return noop(m, 'a timer of an earlier state');
  return enter(m, { state: 'half-open', since: now, opens: s.opens }, {}, 'the break is over');
}

function isolate<S>(m: BreakerState<S>, now: number): BreakerTransition<S> {
  const opens = m.snapshot.opens + 1;
  return enter(
    m,
    { state: 'open', since: now, until: Infinity, opens, lastError: undefined },
    { isolated: true },
    'isolated until reset()',
    [],
    [{ type: 'persist', shared: { state: 'open', until: Infinity, opens } }],
  );
}

/** Follows another breaker's decision: a close, or an open that ends later than this one's. */
function follow<S>(
  m: BreakerState<S>,
  shared: SharedBreakerState,
  now: number,
  rules: BreakerRules<S>,
): BreakerTransition<S> {
  if (m.isolated) return noop(m, 'isolated: the store is not followed until reset()');
  const s = m.snapshot;
  if (shared.state === 'closed') {
    if (s.state === 'closed') return noop(m, 'already closed');
    return close(m, now, rules, false, 'closed through the store');
  }
  if (s.state === 'open' && s.until >= shared.until) return noop(m, `already ${openFor(s.until, now)}`);
  if (shared.until <= now) return noop(m, `a shared break that ended ${formatDuration(now - shared.until)} ago`);
  return enter(
    m,
    { state: 'open', since: now, until: shared.until, opens: Math.max(shared.opens, s.opens), lastError: undefined },
    {},
    'opened through the store',
  );
}

/** The breaker's next state and the effects that carry it out. */
export function decide<S>(m: BreakerState<S>, event: BreakerEvent, rules: BreakerRules<S>): BreakerTransition<S> {
  switch (event.type) {
    case 'tick':
      return endDueBreak(m, event.now);
    case 'acquire':
      return acquire(m, event.now);
    case 'succeeded':
      return succeeded(m, event.permit, event.now, rules);
    case 'failed':
      return failed(m, event, rules);
    case 'cancelled':
      return freeProbe(m, event.permit, 'a cancelled call');
    case 'break-elapsed':
      return breakElapsed(m, event.generation, event.now);
    case 'isolate':
      return isolate(m, event.now);
    case 'reset':
      return close(m, event.now, rules, true, 'reset()', { isolated: false });
    case 'shared':
      return follow(m, event.shared, event.now, rules);
  }
}
