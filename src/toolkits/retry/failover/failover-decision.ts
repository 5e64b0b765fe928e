/**
 * One `failover()` call as a pure function: `decide(state, event, rules) -> { state, effects }`.
 * It reads no clock, starts nothing and holds no timer: the time and what each provider allows now
 * (its breaker, its backoff, its budget) come in the events, and the effects (acquire a breaker
 * permit, start an attempt, arm the hedge, wait, abort, settle) are data that the call's runner in
 * `failover-call.ts` carries out. What outlives the call (each provider's backoff, failures, breaker and
 * budget) stays with the runner; an event that no longer applies (the call has settled, the attempt
 * has left) is a no-op.
 * @module
 */
import {
  type AttemptSpacing,
  FULL_CREDIT,
  type StartCredit,
  earliestStart,
  spendStart,
} from '../../../backoff/attempt-spacing.js';
import { formatDuration } from '../../../internal/format-duration.js';
import { openFor } from '../breaker/broken-circuit-error.js';
import type { Classification } from '../classification/classify.js';
import type { RetryEvent } from '../core/retry-event.js';
import { DeadlineExceededError } from '../timeouts/deadline-exceeded-error.js';
import { FailoverError, type FailoverGiveUp, type ProviderOutcome } from './failover-error.js';

/** The abort reason of the attempts that lost to a faster provider. */
export const HEDGE_LOST = 'another provider answered first';

/** What a provider allows at the time of an event, as the runner sees it. */
export interface ProviderView {
  /** Its breaker's state; undefined without a breaker. `until` is when an open breaker half-opens. */
  readonly breaker:
    { readonly state: 'closed' | 'half-open' } | { readonly state: 'open'; readonly until: number } | undefined;
  /** When its backoff or a server hint lets it be tried again (-Infinity: now). */
  readonly nextEligibleAt: number;
  /** It has a budget, it was tried in this call, and the budget refuses a second attempt. */
  readonly retryRefused: boolean;
}

/** One attempt in flight. */
export interface FlightState {
  /** Identifies the attempt within the call (its 1-based number across providers). */
  readonly attempt: number;
  /** The provider's index in the configured order. */
  readonly provider: number;
  /** When it started. */
  readonly begun: number;
}

/** What the call has noted of one provider: its last word. */
export interface NotedOutcome {
  readonly provider: number;
  readonly outcome: ProviderOutcome['outcome'];
  readonly detail: string;
  readonly error: unknown;
}

/** One pass over the providers, begun at `t`, which starts at most what `floorAt` allows. */
interface Pump {
  readonly t: number;
  /** The floor on attempt starts when the pass began. */
  readonly floorAt: number;
  /** Providers whose half-open breaker has its one probe out: due when their breaker changes. */
  readonly busy: readonly number[];
}

/** The whole state of one call. */
export interface CallState {
  /** When the call must be done, on the scheduler clock (Infinity for never). */
  readonly deadline: number;
  /** The provider indices in this call's order (sticky key, round-robin or weighted). */
  readonly sequence: readonly number[];
  /** Attempts started, across providers. */
  readonly attempts: number;
  /** The floor on attempt starts within the call. */
  readonly credit: StartCredit;
  /** Attempts per provider, by configured index. */
  readonly tries: readonly number[];
  /** Each provider's last word, in the order they were first noted. */
  readonly outcomes: readonly NotedOutcome[];
  readonly flights: readonly FlightState[];
  /** The hedge timer is armed. */
  readonly hedgeArmed: boolean;
  /** Another attempt may start beside those in flight (the hedge fired, or one failed). */
  readonly hedgeDue: boolean;
  /** The pass in progress while a breaker permit is asked for. */
  readonly pump: Pump | undefined;
  readonly settled: boolean;
  /**
   * Whether the call may be sent again after it may have reached a provider (`idempotency:
   * 'idempotent'`): only then does it fail over after such a failure, or hedge.
   */
  readonly repeatable: boolean;
  /** The provider the call may have reached last (a cut, a timeout, a reset after sending). */
  readonly maybeSentTo: number | undefined;
  /** A call that is not repeatable may have reached a provider: it stops once that is charged. */
  readonly stopping: boolean;
}

/** The call's fixed rules, from the `failover()` options. */
export interface FailoverRules {
  /** The providers' names, in the configured order. */
  readonly names: readonly string[];
  readonly maxAttempts: number;
  readonly maxCopies: number;
  readonly hedgeDelay: number;
  /** The deadline option, ms (for the error). */
  readonly deadlineMs: number;
  readonly spacing: AttemptSpacing;
}

/** What the runner reports about providers with the events that look for one to start. */
interface Looking {
  readonly now: number;
  readonly providers: readonly ProviderView[];
}

/** How an attempt failed: it threw (or rejected), or its attempt timeout cut it. */
export type AttemptFailureKind = 'failed' | 'timed-out';

/** The facts of an attempt's failure, as the events and effects about it carry them. */
interface AttemptFailure {
  readonly attempt: number;
  readonly error: unknown;
  readonly kind: AttemptFailureKind;
}

/** Everything that can happen to a call. */
export type CallEvent<T> =
  | ({ readonly type: 'start' } & Looking)
  /** A wait ended, or the breaker of a provider with its probe out changed. */
  | ({ readonly type: 'pump' } & Looking)
  | ({ readonly type: 'granted'; readonly provider: number } & Looking)
  | ({ readonly type: 'refused'; readonly provider: number } & Looking)
  | ({ readonly type: 'hedge-fired' } & Looking)
  | { readonly type: 'deadline-fired' }
  | { readonly type: 'aborted'; readonly reason: unknown }
  | { readonly type: 'succeeded'; readonly attempt: number; readonly value: T }
  | ({ readonly type: 'failed'; readonly verdict: Classification } & AttemptFailure)
  /** The runner has charged a transient failure to its provider (backoff, breaker, budget, health). */
  | ({
      readonly type: 'penalized';
      readonly provider: number;
      readonly kind: AttemptFailureKind;
      readonly detail: string;
      readonly error: unknown;
      /** Set when the provider's backoff policy broke: the call stops with it. */
      readonly policyError?: Error;
    } & Looking);

/** What the runner does. */
export type CallEffect<T> =
  | { readonly type: 'arm-deadline'; readonly at: number }
  | { readonly type: 'clear-deadline' }
  | { readonly type: 'listen-abort' }
  | { readonly type: 'unlisten-abort' }
  /** Ask the provider's breaker for a permit; report `granted` or `refused`. */
  | { readonly type: 'acquire'; readonly provider: number }
  /** Give back a permit granted after the call settled. */
  | { readonly type: 'drop-permit'; readonly provider: number }
  /** Count the attempt on the provider (budget, in flight) and give it a signal and the permit. */
  | { readonly type: 'launch'; readonly flight: FlightState; readonly retry: boolean }
  | { readonly type: 'arm-attempt-timer'; readonly attempt: number }
  /** Call the provider. */
  | { readonly type: 'call'; readonly attempt: number }
  /** The attempt has left: stop its timer, it is no longer in flight. */
  | { readonly type: 'leave'; readonly attempt: number }
  | { readonly type: 'reward'; readonly attempt: number }
  /** Charge a transient failure to the attempt's provider; `reason` is the classifier's, for the note. */
  | ({ readonly type: 'penalize'; readonly reason: string } & AttemptFailure)
  | { readonly type: 'cancel-permit'; readonly attempt: number }
  /** Cut an attempt in flight: cancel its timer and permit, abort its signal with `reason`. */
  | { readonly type: 'end-flight'; readonly attempt: number; readonly reason: unknown }
  | { readonly type: 'arm-hedge'; readonly after: number }
  | { readonly type: 'cancel-hedge' }
  /** Pump again at `at` (none: never by time), or when the breaker of a `watch` provider changes. */
  | { readonly type: 'set-wait'; readonly at: number | undefined; readonly watch: readonly number[] }
  | { readonly type: 'clear-wait' }
  | { readonly type: 'emit'; readonly event: RetryEvent }
  /** Publish the providers' snapshots. */
  | { readonly type: 'publish' }
  | { readonly type: 'resolve'; readonly value: T }
  | { readonly type: 'reject'; readonly error: unknown };

/** The outcome of one event. A no-op returns the same `state` object and no effects. */
export interface Decision<T> {
  readonly state: CallState;
  readonly effects: readonly CallEffect<T>[];
}

/** The state of a new call. */
export function initialCallState(
  deadline: number,
  sequence: readonly number[],
  providers: number,
  repeatable = true,
): CallState {
  return {
    repeatable,
    maybeSentTo: undefined,
    stopping: false,
    deadline,
    sequence,
    attempts: 0,
    credit: FULL_CREDIT,
    tries: Array.from({ length: providers }, () => 0),
    outcomes: [],
    flights: [],
    hedgeArmed: false,
    hedgeDue: false,
    pump: undefined,
    settled: false,
  };
}

/**
 * Why `provider` cannot be tried at `t`, or undefined if it can: in flight, breaker open, backing
 * off (its backoff or a server hint), or its budget refuses a second attempt.
 */
export function blockedReason(state: CallState, provider: number, view: ProviderView, t: number): string | undefined {
  if (state.flights.some((f) => f.provider === provider)) return 'in flight';
  if (view.breaker?.state === 'open') return `circuit ${openFor(view.breaker.until, t)}`;
  if (view.nextEligibleAt > t) return `backing off for another ${formatDuration(view.nextEligibleAt - t)}`;
  if (view.retryRefused) return 'retry budget exhausted';
  return undefined;
}

/** When `view`'s provider can next be tried: after its backoff and its open breaker. */
export function dueAt(view: ProviderView): number {
  return Math.max(view.nextEligibleAt, view.breaker?.state === 'open' ? view.breaker.until : -Infinity);
}

function hasOutcome(s: CallState, provider: number): boolean {
  return s.outcomes.some((o) => o.provider === provider);
}

function note(
  s: CallState,
  provider: number,
  outcome: ProviderOutcome['outcome'],
  detail: string,
  error?: unknown,
): CallState {
  const entry: NotedOutcome = { provider, outcome, detail, error };
  const at = s.outcomes.findIndex((o) => o.provider === provider);
  const outcomes = at < 0 ? [...s.outcomes, entry] : s.outcomes.map((o, i) => (i === at ? entry : o));
  return { ...s, outcomes };
}

const same = <T>(s: CallState): Decision<T> => ({ state: s, effects: [] });

/** Ends the call: clears its timers and listener, cuts the attempts in flight with `reason`. */
function cleanup<T>(s: CallState, reason: unknown, cut: boolean): Decision<T> {
  let state: CallState = { ...s, settled: true, flights: [], pump: undefined, hedgeArmed: false };
  const effects: CallEffect<T>[] = [
    { type: 'clear-wait' },
    { type: 'cancel-hedge' },
    { type: 'clear-deadline' },
    { type: 'unlisten-abort' },
  ];
  for (const flight of s.flights) {
    if (cut) {
      state = note(state, flight.provider, 'cut', reason instanceof Error ? reason.message : String(reason));
      state = { ...state, maybeSentTo: flight.provider };
    }
    effects.push({ type: 'end-flight', attempt: flight.attempt, reason });
  }
  effects.push({ type: 'publish' });
  return { state, effects };
}

function giveUp<T>(s: CallState, why: FailoverGiveUp, rules: FailoverRules): Decision<T> {
  if (s.settled) return same(s);
  const end = cleanup<T>(s, new DeadlineExceededError(rules.deadlineMs, s.attempts), why === 'deadline');
  const noted = end.state.outcomes;
  const list = rules.names.map((name, i): ProviderOutcome => {
    const o = noted.find((x) => x.provider === i);
    return {
      provider: name,
      attempts: s.tries[i] ?? 0,
      ...(o === undefined
        ? { outcome: 'not-tried', detail: '', error: undefined }
        : { outcome: o.outcome, detail: o.detail, error: o.error }),
    };
  });
  const last = noted
    .map((o) => o.error)
    .filter((e) => e !== undefined)
    .at(-1);
  const maybeSentTo = end.state.maybeSentTo === undefined ? undefined : rules.names[end.state.maybeSentTo];
  const options = {
    ...(last === undefined ? {} : { cause: last }),
    ...(maybeSentTo === undefined ? {} : { maybeSentTo }),
  };
  return {
    state: end.state,
    effects: [
      ...end.effects,
      {
        type: 'emit',
        event: {
          type: 'give-up',
          attempt: s.attempts,
          reason: why === 'deadline' ? 'deadline' : 'attempts',
          error: last,
        },
      },
      { type: 'reject', error: new FailoverError(why, list, options) },
    ],
  };
}

/** Begins a pass over the providers at `now`: clears the wait, then looks for one to start. */
function beginPump<T>(
  s: CallState,
  look: Looking,
  rules: FailoverRules,
  before: readonly CallEffect<T>[] = [],
): Decision<T> {
  if (s.settled) return { state: s, effects: before };
  const pump: Pump = { t: look.now, floorAt: earliestStart(s.credit, rules.spacing), busy: [] };
  return step({ ...s, pump }, look, rules, [...before, { type: 'clear-wait' }]);
}

/**
 * Continues the pass: asks for the first provider that can be tried (fewest attempts in this call
 * first, then the call's order), or, when none may start, decides whether to hedge, wait or give up.
 */
function step<T>(s: CallState, look: Looking, rules: FailoverRules, before: readonly CallEffect<T>[]): Decision<T> {
  const pump = s.pump;
  if (pump === undefined) return { state: s, effects: before };
  const { t, floorAt, busy } = pump;
  const flying = s.flights.length;
  let state = s;
  if (
    floorAt <= t &&
    flying < rules.maxCopies &&
    (flying === 0 || (s.hedgeDue && s.repeatable)) &&
    s.attempts < rules.maxAttempts
  ) {
    const candidates = [...s.sequence].sort((x, y) => (s.tries[x] ?? 0) - (s.tries[y] ?? 0));
    for (const provider of candidates) {
      if (busy.includes(provider)) continue;
      const view = look.providers[provider];
      if (view === undefined) continue;
      const why = blockedReason(state, provider, view, t);
      if (why !== undefined) {
        if (why !== 'in flight' && !hasOutcome(state, provider)) state = note(state, provider, 'skipped', why);
        continue;
      }
      return { state, effects: [...before, { type: 'acquire', provider }] };
    }
  }
  return endPump({ ...state, pump: undefined }, pump, look, rules, before);
}

/** The pass started what it could: hedge or wait for the floor, or wait for a provider, or give up. */
function endPump<T>(
  s: CallState,
  pump: Pump,
  look: Looking,
  rules: FailoverRules,
  before: readonly CallEffect<T>[],
): Decision<T> {
  const { t, floorAt, busy } = pump;
  if (s.flights.length > 0) {
    if (floorAt > t && s.hedgeDue) {
      return { state: s, effects: [...before, { type: 'set-wait', at: floorAt, watch: [] }] };
    }
    // hedgeDue still set: the last hedge found no provider to start; a failure will pump again.
    if (
      rules.hedgeDelay === Infinity ||
      !s.repeatable ||
      s.flights.length >= rules.maxCopies ||
      s.hedgeArmed ||
      s.hedgeDue ||
      s.attempts >= rules.maxAttempts
    ) {
      return { state: s, effects: before };
    }
    return { state: { ...s, hedgeArmed: true }, effects: [...before, { type: 'arm-hedge', after: rules.hedgeDelay }] };
  }
  const withBefore = (d: Decision<T>): Decision<T> => ({ state: d.state, effects: [...before, ...d.effects] });
  if (s.attempts >= rules.maxAttempts) return withBefore(giveUp(s, 'attempts', rules));
  // Nothing in flight and nothing to try now: wait for the soonest provider, within the deadline.
  const dueTimes = look.providers.filter((v, i) => !busy.includes(i) && !v.retryRefused).map(dueAt);
  const soonest = Math.max(Math.min(...dueTimes), floorAt);
  if (soonest === Infinity && busy.length === 0) return withBefore(giveUp(s, 'no-provider', rules));
  if (soonest >= s.deadline && busy.length === 0) return withBefore(giveUp(s, 'deadline', rules));
  return {
    state: s,
    effects: [...before, { type: 'set-wait', at: soonest < s.deadline ? soonest : undefined, watch: busy }],
  };
}

type EventType = CallEvent<unknown>['type'];
type EventOf<T, K extends EventType> = Extract<CallEvent<T>, { type: K }>;
type Handler<K extends EventType> = <T>(s: CallState, event: EventOf<T, K>, rules: FailoverRules) => Decision<T>;

const HANDLERS: { readonly [K in EventType]: Handler<K> } = {
  start: (s, e, rules) =>
    beginPump(s, e, rules, [
      ...(s.deadline === Infinity ? [] : [{ type: 'arm-deadline', at: s.deadline } as const]),
      { type: 'listen-abort' },
    ]),
  pump: (s, e, rules) => beginPump(s, e, rules),
  'hedge-fired': (s, e, rules) => beginPump({ ...s, hedgeArmed: false, hedgeDue: true }, e, rules),
  granted: <T>(s: CallState, e: EventOf<T, 'granted'>, rules: FailoverRules): Decision<T> => {
    if (s.pump === undefined) return { state: s, effects: [{ type: 'drop-permit', provider: e.provider }] };
    const attempt = s.attempts + 1;
    const tries = s.tries.map((n, i) => (i === e.provider ? n + 1 : n));
    const flight: FlightState = { attempt, provider: e.provider, begun: e.now };
    const state: CallState = {
      ...s,
      attempts: attempt,
      credit: spendStart(s.credit, e.now, rules.spacing),
      tries,
      flights: [...s.flights, flight],
      hedgeDue: false,
      // Restart the hedge clock from this start.
      hedgeArmed: false,
    };
    return step(state, e, rules, [
      { type: 'launch', flight, retry: (tries[e.provider] ?? 0) > 1 },
      { type: 'emit', event: { type: 'attempt', attempt } },
      { type: 'publish' },
      { type: 'arm-attempt-timer', attempt },
      { type: 'call', attempt },
      { type: 'cancel-hedge' },
    ]);
  },
  refused: (s, e, rules) => {
    const pump = s.pump;
    if (pump === undefined) return same(s);
    const busy = { ...s, pump: { ...pump, busy: [...pump.busy, e.provider] } };
    const state = hasOutcome(s, e.provider)
      ? busy
      : note(busy, e.provider, 'skipped', 'circuit half-open, its probe in flight');
    return step(state, e, rules, []);
  },
  'deadline-fired': (s, _e, rules) => giveUp(s, 'deadline', rules),
  aborted: <T>(s: CallState, e: EventOf<T, 'aborted'>): Decision<T> => {
    const end = cleanup<T>(s, e.reason, false);
    return { state: end.state, effects: [...end.effects, { type: 'reject', error: e.reason }] };
  },
  succeeded: <T>(s: CallState, e: EventOf<T, 'succeeded'>): Decision<T> => {
    const flight = s.flights.find((f) => f.attempt === e.attempt);
    if (flight === undefined) return same(s);
    const left: CallState = { ...s, flights: s.flights.filter((f) => f !== flight) };
    const end = cleanup<T>(left, new Error(HEDGE_LOST), false);
    return {
      state: end.state,
      effects: [
        { type: 'leave', attempt: e.attempt },
        { type: 'reward', attempt: e.attempt },
        { type: 'emit', event: { type: 'success', attempt: s.attempts } },
        ...end.effects,
        { type: 'resolve', value: e.value },
      ],
    };
  },
  failed: <T>(s: CallState, e: EventOf<T, 'failed'>): Decision<T> => {
    const flight = s.flights.find((f) => f.attempt === e.attempt);
    if (flight === undefined) return same(s);
    const left: CallState = { ...s, flights: s.flights.filter((f) => f !== flight) };
    const leave: CallEffect<T> = { type: 'leave', attempt: e.attempt };
    if (e.verdict.kind === 'permanent') {
      // A permanent failure is the call's, not the provider's health: not counted against its breaker.
      const end = cleanup<T>(left, new Error(`another provider failed permanently: ${e.verdict.reason}`), false);
      return {
        state: end.state,
        effects: [
          leave,
          { type: 'cancel-permit', attempt: e.attempt },
          {
            type: 'emit',
            event: { type: 'permanent', attempt: s.attempts, reason: e.verdict.reason, error: e.error },
          },
          ...end.effects,
          { type: 'reject', error: e.error },
        ],
      };
    }
    const maybeSent = e.verdict.sent === 'maybe';
    const charged: CallState = maybeSent ? { ...left, maybeSentTo: flight.provider, stopping: !s.repeatable } : left;
    return {
      state: charged,
      effects: [
        leave,
        { type: 'penalize', attempt: e.attempt, error: e.error, kind: e.kind, reason: e.verdict.reason },
      ],
    };
  },
  penalized: <T>(s: CallState, e: EventOf<T, 'penalized'>, rules: FailoverRules): Decision<T> => {
    const failed = e.policyError === undefined;
    const noted = note(s, e.provider, e.kind, e.detail, failed ? e.error : e.policyError);
    if (!failed) {
      // A broken policy is a programming error: the call stops with it, never a 0 ms retry.
      const end = cleanup<T>(noted, new Error(`the backoff policy of ${rules.names[e.provider] ?? '?'} failed`), false);
      return {
        state: end.state,
        effects: [{ type: 'publish' }, ...end.effects, { type: 'reject', error: e.policyError }],
      };
    }
    // Not idempotent and it may have reached this provider: no other provider may be sent it.
    if (noted.stopping) {
      const end = giveUp<T>(noted, 'maybe-sent', rules);
      return { state: end.state, effects: [{ type: 'publish' }, ...end.effects] };
    }
    return beginPump({ ...noted, hedgeDue: true }, e, rules, [{ type: 'publish' }]);
  },
};

/** Applies `event` to `s`. Pure: the same inputs give the same outputs. */
export function decide<T>(s: CallState, event: CallEvent<T>, rules: FailoverRules): Decision<T> {
  if (s.settled) {
    // A permit granted after the call settled goes back at once.
    return event.type === 'granted'
      ? { state: s, effects: [{ type: 'drop-permit', provider: event.provider }] }
      : same(s);
  }
  // The table is keyed by event type, so each handler receives the event variant it declares.
  const handler = HANDLERS[event.type] as (s: CallState, e: CallEvent<T>, rules: FailoverRules) => Decision<T>;
  return handler(s, event, rules);
}
