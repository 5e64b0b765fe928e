/**
 * The connection state machine as a pure function: `(state, event, env) -> { state, effects }`.
 * It reads no clock and starts nothing; the time and the random source come in `env`, and the
 * effects (start or stop an attempt, arm or clear the one timer, complete) are data that
 * {@link ConnectionManager} carries out. Events that do not apply to the current state are no-ops
 * whose `detail` says why.
 * @module
 */
import {
  type AttemptSpacing,
  DEFAULT_ATTEMPT_SPACING,
  FULL_CREDIT,
  type StartCredit,
  earliestStart,
  spendStart,
} from '../backoff/attempt-spacing.js';
import { type Backoff, type BackoffPolicy, type RandomSource, uniform } from '../backoff/backoff.js';
import { stepBackoff } from '../backoff/backoff-step.js';
import { type BoundedHint, boundHint, defaultHintCeiling, describeHint, hintFloor } from '../backoff/server-hint.js';
import type { ConnectionSnapshot, ShutdownReason } from './connection-snapshot.js';
import { type ConnectivityState, isAllowedTransition } from './connectivity-state.js';
import { isBackoffPolicyError } from '../errors/backoff-policy-error.js';
import { ConnectTimeoutError } from '../errors/connect-timeout-error.js';
import { ConnectionClosedError } from '../errors/connection-closed-error.js';
import { isConnectorBackoffError } from '../errors/connector-backoff-error.js';
import { isGracefulEnd } from '../errors/graceful-end.js';
import { NotServingError } from '../errors/not-serving-error.js';
import { PermanentError, isPermanentError } from '../errors/permanent-error.js';
import { describeSafely } from '../internal/read-safely.js';
import { formatDuration, formatIn } from '../internal/format-duration.js';
import { retryAfterDelayOf } from '../errors/retry-after-error.js';
import { ShutdownError } from '../errors/shutdown-error.js';

/** The machine's whole state: the public snapshot plus the bookkeeping behind it. */
export interface MachineState<C> {
  readonly snapshot: ConnectionSnapshot<C>;
  /** The backoff that governs the wait after the current or last attempt; undefined after a reset. */
  readonly backoff: Backoff | undefined;
  /** Start of the current or last attempt. */
  readonly attemptStartedAt: number;
  /** Earliest start of the next attempt: start of the last attempt + its backoff delay. */
  readonly deadline: number;
  /** Identifies the attempt (and the connection it became) across the manager's life. */
  readonly attemptId: number;
  /** When the one timer fires (attempt cut in CONNECTING, next attempt in TRANSIENT_FAILURE). */
  readonly timerAt: number | undefined;
  /** Attempts are on hold (`pause()`, e.g. while offline) until `resume()`. */
  readonly paused: boolean;
  /** The floor on attempt starts: how many may start now without waiting (see {@link AttemptSpacing}). */
  readonly credit: StartCredit;
  /**
   * The grace credit: whether the next graceful end before minUptime may reset the backoff. Earned
   * when a connection ends after staying READY for minUptime, spent by such a reset; a new manager
   * has none, so a server that ends every connection gracefully at once meets the full schedule.
   */
  readonly graceCredit: boolean;
  /**
   * The earliest time the server's hint on the last failure lets the next attempt start (the hint,
   * cut to the ceiling and spread, from the failure); -Infinity when it gave none. Whatever ends a
   * wait early (`resetBackoff()`, `wake()`, `resume()`) ends it no sooner than this.
   */
  readonly hintedUntil: number;
  /** When the current or last connection was established: what its uptime counts from. */
  readonly establishedAt: number;
}

/** Everything that can happen to a manager. */
export type MachineEvent<C> =
  | { readonly type: 'connect' }
  /** The attempt's connection is up; `serving: false` when the server already reported it is not serving. */
  | {
      readonly type: 'established';
      readonly attemptId: number;
      readonly connection: C;
      readonly serving?: boolean;
      readonly reason?: unknown;
    }
  /** The server on the open connection reports it is serving, or not (`reason`: why). */
  | { readonly type: 'serving'; readonly attemptId: number; readonly serving: boolean; readonly reason: unknown }
  | { readonly type: 'ended'; readonly attemptId: number; readonly error: unknown; readonly clean: boolean }
  | { readonly type: 'timer'; readonly at: number }
  | { readonly type: 'reset-backoff' }
  /** A moment worth retrying at once (the network is back, the page is shown again). */
  | { readonly type: 'wake'; readonly ifWaitExceeds: number }
  | { readonly type: 'idle' }
  | { readonly type: 'pause'; readonly offline?: true }
  | { readonly type: 'resume' }
  | { readonly type: 'shutdown' };

/** Work for the runner. */
export type Effect =
  | { readonly type: 'start-attempt'; readonly attemptId: number; readonly attempt: number; readonly timeoutAt: number }
  | { readonly type: 'stop-attempt'; readonly attemptId: number; readonly reason: Error }
  /** Arms the one timer at `at`, replacing any armed timer. */
  | { readonly type: 'set-timer'; readonly at: number }
  | { readonly type: 'clear-timer' }
  | { readonly type: 'complete' };

/**
 * The rules a transition applies: the manager's options that decide what an event does. They are
 * declared once, here; the manager's resolved options extend them and are passed on as they are.
 */
export interface MachineRules {
  /** The random source for jitter. */
  readonly random: RandomSource;
  /** The backoff policy. */
  readonly backoff: BackoffPolicy;
  /** The least time (ms) any attempt is given before it is cut. */
  readonly minConnectTimeout: number;
  /** How long (ms) a connection must stay READY for its establishment to reset the backoff. */
  readonly minUptime: number;
  /** Whether a lost READY connection reconnects by itself (else it goes IDLE). */
  readonly autoReconnect: boolean;
  /**
   * Retries after the first attempt of a backoff cycle; when an attempt fails (or a connection is
   * lost before minUptime) with none left, the machine gives up. @defaultValue Infinity
   */
  readonly maxRetries?: number;
  /** The first reconnect after a lost READY connection starts no sooner than U(0, reconnectSpread) after the loss; 0: none. Optional: 0. */
  readonly reconnectSpread?: number;
  /**
   * A connection lost after minUptime counts as the first failure of a new cycle: one first wait,
   * from the loss, before reconnecting (the WebSocket peers' rule). Optional: false, reconnect at once.
   */
  readonly backoffAfterLoss?: boolean;
  /**
   * The floor on the spacing of attempt starts, which no backoff or server hint can undercut.
   * @defaultValue {@link DEFAULT_ATTEMPT_SPACING} (5 back to back, then one per 100 ms)
   */
  readonly attemptSpacing?: AttemptSpacing;
  /** How a server's retry hint counts: a floor under the backoff (default) or the wait itself, within the policy's bounds. */
  readonly serverHints?: 'at-least' | 'exact';
  /**
   * The ceiling on a server's retry hint, ms: a longer hint is cut to it.
   * @defaultValue the greater of the policy's `bounds.max` and 120 000 ({@link defaultHintCeiling})
   */
  readonly maxRetryAfter?: number;
}

/** The inputs of a transition besides state and event: the rules, and the time on the scheduler's clock. */
export interface MachineEnv extends MachineRules {
  /** The time of the event. */
  readonly now: number;
}

/** The outcome of one event. A no-op returns the same `state` object and no effects. */
export interface Transition<C> {
  readonly state: MachineState<C>;
  readonly effects: readonly Effect[];
  readonly detail: string;
}

type EventType = MachineEvent<unknown>['type'];
type EventOf<C, T extends EventType> = Extract<MachineEvent<C>, { type: T }>;
type Handler<C, T extends EventType> = (m: MachineState<C>, event: EventOf<C, T>, env: MachineEnv) => Transition<C>;
type HandlerTable = Readonly<Record<ConnectivityState, { readonly [T in EventType]?: Handler<unknown, T> }>>;

/** The state of a new manager. */
export function initialState<C>(now: number): MachineState<C> {
  return {
    snapshot: { state: 'IDLE', since: now, attempt: 0, lastError: undefined },
    backoff: undefined,
    attemptStartedAt: -Infinity,
    deadline: -Infinity,
    attemptId: 0,
    timerAt: undefined,
    paused: false,
    credit: FULL_CREDIT,
    graceCredit: false,
    hintedUntil: -Infinity,
    establishedAt: -Infinity,
  };
}

/**
 * A transition whose `detail` is written when it is first read. A manager reads it only for its
 * `trace`, and putting a transition's times into words (jittered, fractional milliseconds) cost more
 * than the rest of the transition. `describe` must read only values fixed when the transition was
 * made: `env` is the caller's, and its `now` moves on.
 */
class Described<C> implements Transition<C> {
  #detail: string | (() => string);

  constructor(
    readonly state: MachineState<C>,
    readonly effects: readonly Effect[],
    describe: () => string,
  ) {
    this.#detail = describe;
  }

  get detail(): string {
    if (typeof this.#detail !== 'string') this.#detail = this.#detail();
    return this.#detail;
  }
}

function noop<C>(m: MachineState<C>, detail: string): Transition<C> {
  return { state: m, effects: [], detail: `ignored: ${detail}` };
}

function enter<C>(
  m: MachineState<C>,
  patch: Partial<Omit<MachineState<C>, 'snapshot'>>,
  snapshot: ConnectionSnapshot<C>,
): MachineState<C> {
  const from = m.snapshot.state;
  if (from !== snapshot.state && !isAllowedTransition(from, snapshot.state)) {
    throw new Error(`redialer: internal error: transition ${from} -> ${snapshot.state} is not in the table`);
  }
  // The fields of `m` are copied from one object shape (monomorphic and fast), then the patch's few
  // fields: cheaper than a two-object spread on every transition. The compiler checks no field is left out.
  const next: MachineState<C> = {
    snapshot,
    backoff: m.backoff,
    attemptStartedAt: m.attemptStartedAt,
    deadline: m.deadline,
    attemptId: m.attemptId,
    timerAt: m.timerAt,
    paused: m.paused,
    credit: m.credit,
    graceCredit: m.graceCredit,
    hintedUntil: m.hintedUntil,
    establishedAt: m.establishedAt,
  };
  return Object.assign(next, patch);
}

function spacingOf(env: MachineEnv): AttemptSpacing {
  return env.attemptSpacing ?? DEFAULT_ATTEMPT_SPACING;
}

/** The earliest time the floor on attempt starts lets the next attempt begin. */
function nextStartFloor(m: MachineState<unknown>, env: MachineEnv): number {
  return earliestStart(m.credit, spacingOf(env));
}

/** The ceiling on a server's hint: `maxRetryAfter`, or the policy's default. */
function ceilingOf(env: MachineEnv): number {
  return env.maxRetryAfter ?? defaultHintCeiling(env.backoff);
}

/** The server's hint on a failure (a valid {@link RetryAfterError}), cut to the ceiling; undefined if none. */
function hintOf(error: unknown, env: MachineEnv): BoundedHint | undefined {
  const hint = boundHint(retryAfterDelayOf(error), ceilingOf(env));
  // A hint of 0 asks for nothing, unless it is the wait itself ('exact': as soon as the bounds allow).
  return hint?.delay === 0 && env.serverHints !== 'exact' ? undefined : hint;
}

function serverNote(hint: BoundedHint | undefined, hints: MachineEnv['serverHints']): string {
  if (hint === undefined) return '';
  return hints === 'exact'
    ? ` (${describeHint(hint)}; honoured within the policy's bounds)`
    : ` (${describeHint(hint)})`;
}

/** When the next attempt may start after a failure, and the part of that the server's hint asks for alone. */
interface HintedStart {
  readonly at: number;
  /** {@link MachineState.hintedUntil} after the failure. */
  readonly hintedUntil: number;
}

/**
 * When the next attempt starts after a failure at `env.now` whose own backoff allows it at `backoffAt`:
 * then, or later as the server's hint asks. The one hint rule (`hintedDelay`): a floor under the
 * backoff, cut to `maxRetryAfter`, spread upwards so clients told the same wait do not return in
 * lockstep. With `serverHints: 'exact'` the hint is the wait itself, clamped into the policy's
 * [first wait, cap] (and the ceiling), so a server can neither make the client dial faster than its
 * first wait nor hold it past its cap. The floor on attempt starts applies in both.
 */
function hintedAt(
  m: MachineState<unknown>,
  hint: BoundedHint | undefined,
  backoffAt: number,
  env: MachineEnv,
): HintedStart | BackoffStepFailure {
  if (hint === undefined) return { at: backoffAt, hintedUntil: -Infinity };
  const { now } = env;
  if (env.serverHints === 'exact') {
    let min = env.backoff.bounds?.min;
    if (min === undefined) {
      const first = stepBackoff(env.backoff, undefined, env.random);
      if (!first.ok) return { failed: first.error };
      min = first.delay;
    }
    const ceiling = ceilingOf(env);
    const max = Math.max(min, Math.min(env.backoff.bounds?.max ?? ceiling, ceiling));
    const hintedUntil = now + Math.min(Math.max(hint.delay, min), max);
    return { at: Math.max(hintedUntil, nextStartFloor(m, env)), hintedUntil };
  }
  const hintedUntil = now + hintFloor(hint.delay, ceilingOf(env), env.random);
  return { at: Math.max(backoffAt, hintedUntil), hintedUntil };
}

/** A policy that failed while a hint was being applied (only the 'exact' mode asks the policy). */
interface BackoffStepFailure {
  readonly failed: Error;
}

function policyFailed<C>(m: MachineState<C>, env: MachineEnv, error: Error, extra: Effect[]): Transition<C> {
  const shut = shutdownWith(m, env, 'policy-error', error, error.message);
  return { state: shut.state, effects: [...extra, ...shut.effects], detail: shut.detail };
}

function timerEffects(m: MachineState<unknown>): Effect[] {
  return m.timerAt === undefined ? [] : [{ type: 'clear-timer' }];
}

/** Whether a connection is open: READY, or TRANSIENT_FAILURE on a connection whose server is not serving. */
function isConnected(m: MachineState<unknown>): boolean {
  const snapshot = m.snapshot;
  return snapshot.state === 'READY' || (snapshot.state === 'TRANSIENT_FAILURE' && snapshot.connected === true);
}

function stopEffects(m: MachineState<unknown>, reason: Error): Effect[] {
  return m.snapshot.state === 'CONNECTING' || isConnected(m)
    ? [{ type: 'stop-attempt', attemptId: m.attemptId, reason }]
    : [];
}

/**
 * The open connection's server is not serving: TRANSIENT_FAILURE with `connected`, the connection
 * kept, no attempt planned and the backoff as it was. Only the connection's end leads to an attempt.
 */
function notServing<C>(
  m: MachineState<C>,
  env: MachineEnv,
  connection: C,
  reason: unknown,
  patch: Partial<MachineState<C>>,
  detail: string,
): Transition<C> {
  const lastError = reason ?? new NotServingError();
  const state = enter(
    m,
    { ...patch, timerAt: undefined },
    {
      state: 'TRANSIENT_FAILURE',
      since: env.now,
      attempt: m.snapshot.attempt,
      lastError,
      nextAttemptAt: Infinity,
      connected: true,
      connection,
    },
  );
  return new Described(
    state,
    timerEffects(m),
    () => `${detail}; the server is not serving: ${describeSafely(lastError)}`,
  );
}

function shutdownWith<C>(
  m: MachineState<C>,
  env: MachineEnv,
  reason: ShutdownReason,
  error: unknown,
  detail: string,
): Transition<C> {
  const lastError = reason === 'shutdown' ? m.snapshot.lastError : error;
  const state = enter(
    m,
    { timerAt: undefined },
    {
      state: 'SHUTDOWN',
      since: env.now,
      attempt: m.snapshot.attempt,
      lastError,
      reason,
    },
  );
  return {
    state,
    effects: [...timerEffects(m), ...stopEffects(m, new ShutdownError()), { type: 'complete' }],
    detail,
  };
}

/** Starts the next attempt: draws the backoff that will follow it and arms the cut timer. */
function startAttempt<C>(m: MachineState<C>, env: MachineEnv, detail: string): Transition<C> {
  const step = stepBackoff(env.backoff, m.backoff, env.random);
  if (!step.ok) return policyFailed(m, env, step.error, []);
  const { backoff, delay } = step;
  const attempt = m.backoff === undefined ? 1 : m.snapshot.attempt + 1;
  const credit = spendStart(m.credit, env.now, spacingOf(env));
  // The floor on attempt starts: the next attempt waits for the backoff and for the start credit.
  const floor = earliestStart(credit, spacingOf(env));
  const deadline = Math.max(env.now + delay, floor);
  const timeoutAt = Math.max(deadline, env.now + env.minConnectTimeout);
  const attemptId = m.attemptId + 1;
  const state = enter(
    m,
    { backoff, attemptStartedAt: env.now, deadline, attemptId, timerAt: timeoutAt, credit },
    {
      state: 'CONNECTING',
      since: env.now,
      attempt,
      lastError: m.snapshot.lastError,
      timeoutAt,
    },
  );
  const { now } = env;
  return new Described(
    state,
    [
      { type: 'set-timer', at: timeoutAt },
      { type: 'start-attempt', attemptId, attempt, timeoutAt },
    ],
    () =>
      `${detail}; attempt ${String(attempt)}, next no sooner than ${formatDuration(deadline - now)} from now${
        floor > now + delay ? ' (the floor on attempt starts)' : ''
      }, cut ${formatIn(timeoutAt - now)}`,
  );
}

/** An attempt failed (or was cut): wait until its deadline, measured from its start. */
function attemptFailed<C>(
  m: MachineState<C>,
  env: MachineEnv,
  error: unknown,
  extra: Effect[],
  detail: string,
): Transition<C> {
  const final = giveUp(m, env, error, extra);
  if (final !== undefined) return final;
  // A connector with a backoff per address says when one is due; the manager's own backoff stands aside,
  // but not the floor on attempt starts.
  const hint = isConnectorBackoffError(error) ? undefined : hintOf(error, env);
  const started = isConnectorBackoffError(error)
    ? { at: Math.max(env.now + error.delay, nextStartFloor(m, env)), hintedUntil: -Infinity }
    : hintedAt(m, hint, Math.max(env.now, m.deadline), env);
  if ('failed' in started) return policyFailed(m, env, started.failed, extra);
  const { hintedUntil } = started;
  // Paused: hold in IDLE, unless the server asked for a wait; that wait runs first (see the TRANSIENT_FAILURE timer).
  if (m.paused && hintedUntil <= env.now)
    return park({ ...m, hintedUntil }, env, error, extra, `${detail}; attempts paused until resume()`);
  const nextAttemptAt = started.at;
  const state = enter(
    m,
    { timerAt: nextAttemptAt, hintedUntil },
    {
      state: 'TRANSIENT_FAILURE',
      since: env.now,
      attempt: m.snapshot.attempt,
      lastError: error,
      nextAttemptAt,
    },
  );
  const { now, serverHints } = env;
  return new Described(
    state,
    [...extra, { type: 'set-timer', at: nextAttemptAt }],
    () => `${detail}; next attempt ${formatIn(nextAttemptAt - now)}${serverNote(hint, serverHints)}`,
  );
}

/**
 * The end of trying: a permanent error, or (when `counted`) a failed attempt that used the last of
 * `maxRetries`. Undefined when the machine goes on.
 */
function giveUp<C>(
  m: MachineState<C>,
  env: MachineEnv,
  error: unknown,
  extra: Effect[],
  counted = true,
): Transition<C> | undefined {
  // A connector's own backoff policy failed (happyEyeballs): the manager stops as for its own.
  if (isBackoffPolicyError(error)) return policyFailed(m, env, error, extra);
  let final: unknown;
  if (isPermanentError(error)) final = error;
  // A backoff reset (undefined backoff) starts a new cycle: the attempt in flight is its first.
  else if (counted && (m.backoff === undefined ? 1 : m.snapshot.attempt) > (env.maxRetries ?? Infinity)) {
    const retries = String(env.maxRetries);
    final = new PermanentError(`redialer: gave up after ${retries} retries (option "maxRetries")`, { cause: error });
  }
  if (final === undefined) return undefined;
  const shut = shutdownWith(m, env, 'permanent-failure', final, `permanent failure: ${describeSafely(final)}`);
  return { state: shut.state, effects: [...extra, ...shut.effects], detail: shut.detail };
}

/** Attempts are paused: hold in IDLE (the snapshot says `paused`) until `resume()` starts the next one. */
function park<C>(m: MachineState<C>, env: MachineEnv, error: unknown, extra: Effect[], detail: string): Transition<C> {
  const state = enter(
    m,
    { timerAt: undefined },
    {
      state: 'IDLE',
      since: env.now,
      attempt: m.snapshot.attempt,
      lastError: error,
      paused: true,
    },
  );
  return { state, effects: [...extra, ...timerEffects(m)], detail };
}

/**
 * A READY connection ended (lost, or closed by `idle()`). If it stayed up for minUptime, the backoff
 * resets; otherwise it counts as a failed attempt, the backoff keeps growing and the wait that attempt
 * was given counts from the connection's end. A graceful end by
 * the server (GOAWAY NO_ERROR: a restart, an age rotation) before minUptime resets it only with the
 * grace credit, which a connection that lived minUptime earns and such a reset spends: a real restart
 * after a lived connection is forgiven once, a server that ends every connection gracefully at once
 * gets the schedule of one that refuses.
 */
function connectionEnded<C>(
  m: MachineState<C>,
  env: MachineEnv,
  error: unknown,
  goIdle: boolean,
  extra: Effect[],
  detail: string,
): Transition<C> {
  const uptime = env.now - m.establishedAt;
  const lived = uptime >= env.minUptime;
  const graceful = !lived && isGracefulEnd(error);
  const forgiven = graceful && m.graceCredit;
  const stable = lived || forgiven;
  // With backoffAfterLoss a stable connection's loss is the first failure of the cycle it starts.
  const lossCounts = stable && env.backoffAfterLoss === true;
  const reconnects = !goIdle && env.autoReconnect;
  const final = giveUp(
    lossCounts ? { ...m, backoff: undefined } : m,
    env,
    error,
    extra,
    reconnects && (!stable || lossCounts),
  );
  if (final !== undefined) return final;
  // A connection lost before minUptime is a failed attempt whose wait counts from its end, not from its
  // start (as reconnecting-websocket and partysocket count it): a server that accepts and then drops
  // connections gets one attempt per lifetime plus wait, never a reconnect at once.
  let backoffAt = env.now + (m.deadline - m.attemptStartedAt);
  let cycle: Backoff | undefined;
  if (stable) {
    const first = stepBackoff(env.backoff, undefined, env.random);
    if (!first.ok) return policyFailed(m, env, first.error, extra);
    // Even after a reset, never start sooner than one fresh first wait after the last attempt began;
    // with backoffAfterLoss, one first wait after the loss.
    backoffAt = Math.max(
      lossCounts ? env.now + first.delay : env.now,
      m.attemptStartedAt + first.delay,
      nextStartFloor(m, env),
    );
    if (lossCounts) cycle = first.backoff;
  }
  const hint = hintOf(error, env);
  const started = hintedAt(m, hint, backoffAt, env);
  if ('failed' in started) return policyFailed(m, env, started.failed, extra);
  let nextAttemptAt = started.at;
  const { hintedUntil } = started;
  const graceCredit = lived || (m.graceCredit && !forgiven);
  const patch: Partial<MachineState<C>> = stable
    ? { backoff: cycle, graceCredit, hintedUntil }
    : { graceCredit, hintedUntil };
  const attempt = lossCounts ? 1 : stable ? 0 : m.snapshot.attempt;
  const { now, minUptime, serverHints } = env;
  const why = (): string => {
    const under = `under minUptime ${formatDuration(minUptime)}`;
    const reset = lossCounts ? 'backoff reset, the loss counts as its first failure' : 'backoff reset';
    const outcome = forgiven
      ? `ended gracefully by the server: ${reset}, grace credit spent`
      : lived
        ? reset
        : graceful
          ? `ended gracefully by the server ${under}, no grace credit: counts as a failure`
          : `${under}: counts as a failure`;
    return `${detail} after ${formatDuration(uptime)} (${outcome})`;
  };
  if (!reconnects) {
    const state = enter(
      m,
      { ...patch, timerAt: undefined },
      { state: 'IDLE', since: env.now, attempt, lastError: error },
    );
    return new Described(state, extra, why);
  }
  // Paused: hold in IDLE, unless the server asked for a wait; that wait runs first (see the TRANSIENT_FAILURE timer).
  if (m.paused && hintedUntil <= env.now)
    return park(
      { ...m, ...patch, snapshot: { ...m.snapshot, attempt } },
      env,
      error,
      extra,
      `${why()}; attempts paused until resume()`,
    );
  const spread = hint !== undefined && serverHints === 'exact' ? 0 : (env.reconnectSpread ?? 0);
  if (spread > 0) nextAttemptAt = Math.max(nextAttemptAt, env.now + uniform(env.random, 0, spread));
  const state = enter(
    m,
    { ...patch, timerAt: nextAttemptAt },
    {
      state: 'TRANSIENT_FAILURE',
      since: env.now,
      attempt,
      lastError: error,
      nextAttemptAt,
    },
  );
  return new Described(
    state,
    [...extra, { type: 'set-timer', at: nextAttemptAt }],
    () => `${why()}; next attempt ${formatIn(nextAttemptAt - now)}${serverNote(hint, serverHints)}`,
  );
}

/** IDLE after resume(), waiting for the floor on attempt starts or the server's hint (a timer armed). */
function isHeld(m: MachineState<unknown>): boolean {
  return m.snapshot.state === 'IDLE' && m.timerAt !== undefined;
}

function isParked(m: MachineState<unknown>): boolean {
  return m.snapshot.state === 'IDLE' && m.snapshot.paused === true;
}

function waitOf<C>(m: MachineState<C>): Extract<ConnectionSnapshot<C>, { state: 'TRANSIENT_FAILURE' }> {
  return m.snapshot as Extract<ConnectionSnapshot<C>, { state: 'TRANSIENT_FAILURE' }>;
}

/**
 * Ends a wait for the next attempt early, with a fresh backoff: at once, or as soon as the floor on
 * attempt starts allows, and with `keepHint` no sooner than the server's hint. Never lengthens it.
 * `resetBackoff()` is the application's own "retry now" and overrides a hint; a wake (the network is
 * back, the page is shown) happens to every client at once and does not.
 */
function endWaitEarly<C>(m: MachineState<C>, env: MachineEnv, keepHint: boolean, detail: string): Transition<C> {
  const reset = { ...m, backoff: undefined };
  const floor = nextStartFloor(m, env);
  const hintedUntil = keepHint ? m.hintedUntil : -Infinity;
  const earliest = Math.max(floor, hintedUntil);
  if (earliest <= env.now)
    return m.paused
      ? park(reset, env, m.snapshot.lastError, [], `${detail}; attempts paused until resume()`)
      : startAttempt(reset, env, detail);
  const why = hintedUntil > floor ? 'the wait the server asked for' : 'the floor on attempt starts';
  const snapshot = waitOf(m);
  if (earliest >= snapshot.nextAttemptAt)
    return { state: reset, effects: [], detail: `${detail}; the wait already ends at ${why}` };
  const state = enter(reset, { timerAt: earliest }, { ...snapshot, nextAttemptAt: earliest });
  return {
    state,
    effects: [{ type: 'set-timer', at: earliest }],
    detail: `${detail}; next attempt ${formatIn(earliest - env.now)} (${why})`,
  };
}

function flag<C>(m: MachineState<C>, detail: string): Transition<C> {
  return { state: m, effects: [], detail };
}

/** READY stays READY, its snapshot saying whether attempts are paused (the connection may be dead). */
function retag<C>(m: MachineState<C>, paused: boolean, detail: string): Transition<C> {
  const ready = m.snapshot as Extract<ConnectionSnapshot<C>, { state: 'READY' }>;
  const snapshot: ConnectionSnapshot<C> = paused
    ? { ...ready, paused: true }
    : {
        state: 'READY',
        since: ready.since,
        attempt: ready.attempt,
        lastError: ready.lastError,
        connection: ready.connection,
      };
  return { state: enter(m, { paused }, snapshot), effects: [], detail };
}

const HANDLERS: HandlerTable = {
  IDLE: {
    connect: (m, _e, env) => {
      if (isHeld(m)) return noop(m, 'connect in IDLE: already waiting for the floor on attempt starts');
      if (!m.paused) return startAttempt(m, env, 'connection requested');
      if (isParked(m)) return noop(m, 'connect in IDLE: already waiting for resume()');
      return park(m, env, m.snapshot.lastError, [], 'connection requested; attempts paused until resume()');
    },
    'reset-backoff': (m) => ({ state: { ...m, backoff: undefined }, effects: [], detail: 'backoff reset' }),
    pause: (m, _e, env) =>
      isHeld(m)
        ? park({ ...m, paused: true }, env, m.snapshot.lastError, [], 'paused: no attempt until resume()')
        : flag({ ...m, paused: true }, 'paused: no attempt until resume()'),
    idle: (m, _e, env) => {
      if (isHeld(m)) {
        const state = enter(m, { timerAt: undefined }, { ...m.snapshot, since: env.now });
        return { state, effects: timerEffects(m), detail: 'went idle' };
      }
      if (!isParked(m)) return noop(m, `idle in IDLE: ${NOT_APPLICABLE.idle}`);
      const state = enter(
        m,
        {},
        { state: 'IDLE', since: env.now, attempt: m.snapshot.attempt, lastError: m.snapshot.lastError },
      );
      return { state, effects: [], detail: 'went idle; no longer waiting for resume()' };
    },
    resume: (m, _e, env) => {
      const resumed = { ...m, paused: false };
      if (!isParked(m)) return flag(resumed, 'resumed');
      // Back from a pause (e.g. online again): the wait so far says nothing about the server, so the
      // backoff starts afresh; but neither the floor on attempt starts nor the server's hint is a
      // wait, and both still hold (a source of resumes that flaps cannot make a hot loop).
      const reset = { ...resumed, backoff: undefined };
      const floor = nextStartFloor(m, env);
      const earliest = Math.max(floor, m.hintedUntil);
      if (earliest <= env.now) return startAttempt(reset, env, 'resumed');
      const why = m.hintedUntil > floor ? 'the wait the server asked for' : 'the floor on attempt starts';
      const { attempt, lastError } = m.snapshot;
      const state = enter(reset, { timerAt: earliest }, { state: 'IDLE', since: env.now, attempt, lastError });
      return {
        state,
        effects: [{ type: 'set-timer', at: earliest }],
        detail: `resumed; next attempt ${formatIn(earliest - env.now)} (${why})`,
      };
    },
    // Only a resumed attempt held back by the floor or a hint arms a timer in IDLE (see resume).
    timer: (m, _e, env) => {
      const held = { ...m, timerAt: undefined };
      return m.paused
        ? park(held, env, m.snapshot.lastError, [], 'the wait is over; attempts paused until resume()')
        : startAttempt(held, env, 'resumed');
    },
  },
  CONNECTING: {
    established: (m, e, env) => {
      const { attempt } = m.snapshot;
      if (e.serving === false)
        return notServing(
          m,
          env,
          e.connection,
          e.reason,
          { establishedAt: env.now },
          `attempt ${String(attempt)} established`,
        );
      const state = enter(
        m,
        { timerAt: undefined, establishedAt: env.now },
        {
          state: 'READY',
          since: env.now,
          attempt: m.snapshot.attempt,
          lastError: undefined,
          connection: e.connection,
        },
      );
      return new Described(state, timerEffects(m), () => `attempt ${String(attempt)} established`);
    },
    ended: (m, e, env) => {
      const error = e.clean ? new ConnectionClosedError('the connection closed before it was established') : e.error;
      return attemptFailed(m, env, error, [], `attempt ${String(m.snapshot.attempt)} failed`);
    },
    timer: (m, _e, env) => {
      const error = new ConnectTimeoutError(m.snapshot.attempt, env.now - m.snapshot.since);
      return attemptFailed(
        { ...m, timerAt: undefined },
        env,
        error,
        [{ type: 'stop-attempt', attemptId: m.attemptId, reason: error }],
        error.message,
      );
    },
    'reset-backoff': (m, _e, env) => {
      // The next attempt will use the first backoff, and if this one fails it follows at once (or as
      // soon as the floor on attempt starts allows).
      const deadline = Math.max(Math.min(m.deadline, env.now), nextStartFloor(m, env));
      const snapshot = m.snapshot as Extract<ConnectionSnapshot, { state: 'CONNECTING' }>;
      const timeoutAt = Math.max(deadline, snapshot.since + env.minConnectTimeout);
      if (timeoutAt === snapshot.timeoutAt) {
        return { state: { ...m, backoff: undefined, deadline }, effects: [], detail: 'backoff reset' };
      }
      const state = enter(m, { backoff: undefined, deadline, timerAt: timeoutAt }, { ...snapshot, timeoutAt });
      return {
        state,
        effects: [{ type: 'set-timer', at: timeoutAt }],
        detail: `backoff reset; cut moved to ${formatDuration(timeoutAt - env.now)} from now`,
      };
    },
    pause: (m) => flag({ ...m, paused: true }, 'paused: if this attempt fails, no new one until resume()'),
    resume: (m) => flag({ ...m, paused: false }, 'resumed'),
    idle: (m, _e, env) => {
      const state = enter(
        m,
        { timerAt: undefined },
        { state: 'IDLE', since: env.now, attempt: m.snapshot.attempt, lastError: m.snapshot.lastError },
      );
      const effects = [...timerEffects(m), ...stopEffects(m, new ShutdownError('the connection manager went idle'))];
      return { state, effects, detail: 'went idle; attempt aborted' };
    },
  },
  READY: {
    ended: (m, e, env) => {
      const error = e.clean ? new ConnectionClosedError() : e.error;
      return connectionEnded(m, env, error, false, [], 'connection lost');
    },
    'reset-backoff': (m) => ({ state: { ...m, backoff: undefined }, effects: [], detail: 'backoff reset' }),
    serving: (m, e, env) => {
      if (e.serving) return noop(m, 'serving in READY: already serving');
      const snapshot = m.snapshot as Extract<ConnectionSnapshot, { state: 'READY' }>;
      return notServing(m, env, snapshot.connection, e.reason, {}, 'reported');
    },
    pause: (m, e) =>
      e.offline === true
        ? retag(
            m,
            true,
            'paused, offline: the connection stays open (the snapshot says paused); if it is lost, no attempt until resume()',
          )
        : flag({ ...m, paused: true }, 'paused: if this connection is lost, no new attempt until resume()'),
    resume: (m) =>
      (m.snapshot as { readonly paused?: true }).paused === true
        ? retag(m, false, 'resumed')
        : flag({ ...m, paused: false }, 'resumed'),
    idle: (m, _e, env) =>
      connectionEnded(
        m,
        env,
        new ConnectionClosedError('the connection was closed by idle()'),
        true,
        stopEffects(m, new ShutdownError('the connection manager went idle')),
        'went idle',
      ),
  },
  TRANSIENT_FAILURE: {
    timer: (m, _e, env) =>
      m.paused
        ? park(
            { ...m, timerAt: undefined },
            env,
            m.snapshot.lastError,
            [],
            'the wait is over; attempts paused until resume()',
          )
        : startAttempt(m, env, 'backoff elapsed'),
    ended: (m, e, env) => {
      if (!isConnected(m)) return noop(m, `ended in TRANSIENT_FAILURE: ${NOT_APPLICABLE.ended}`);
      const error = e.clean ? new ConnectionClosedError() : e.error;
      return connectionEnded(m, env, error, false, [], 'connection lost while not serving');
    },
    serving: (m, e, env) => {
      if (!isConnected(m)) return noop(m, `serving in TRANSIENT_FAILURE: ${NOT_APPLICABLE.serving}`);
      if (!e.serving) return noop(m, 'not serving in TRANSIENT_FAILURE: already not serving');
      const snapshot = waitOf(m);
      const state = enter(
        m,
        {},
        {
          state: 'READY',
          since: env.now,
          attempt: snapshot.attempt,
          lastError: undefined,
          connection: snapshot.connection,
        },
      );
      return { state, effects: [], detail: 'the server is serving again' };
    },
    idle: (m, _e, env) => {
      if (!isConnected(m)) return noop(m, `idle in TRANSIENT_FAILURE: ${NOT_APPLICABLE.idle}`);
      return connectionEnded(
        m,
        env,
        new ConnectionClosedError('the connection was closed by idle()'),
        true,
        stopEffects(m, new ShutdownError('the connection manager went idle')),
        'went idle',
      );
    },
    pause: (m, _e, env) => {
      if (isConnected(m))
        return flag({ ...m, paused: true }, 'paused: if this connection is lost, no new attempt until resume()');
      return m.hintedUntil > env.now
        ? flag({ ...m, paused: true }, 'paused: the wait the server asked for runs on, then no attempt until resume()')
        : park({ ...m, paused: true }, env, m.snapshot.lastError, [], 'paused; the wait is on hold until resume()');
    },
    resume: (m) => flag({ ...m, paused: false }, isConnected(m) ? 'resumed' : 'resumed; the wait runs on'),
    'reset-backoff': (m, _e, env) =>
      isConnected(m)
        ? { state: { ...m, backoff: undefined }, effects: [], detail: 'backoff reset' }
        : endWaitEarly(m, env, false, 'backoff reset'),
    wake: (m, e, env) => {
      if (isConnected(m)) return noop(m, 'wake in TRANSIENT_FAILURE: the connection is open, no wait to cut');
      const left = waitOf(m).nextAttemptAt - env.now;
      if (left <= e.ifWaitExceeds)
        return noop(m, `wake: ${formatDuration(left)} of the wait left, not over ${formatDuration(e.ifWaitExceeds)}`);
      return endWaitEarly(m, env, true, 'woken: backoff reset');
    },
  },
  SHUTDOWN: {},
};

const NOT_APPLICABLE: Readonly<Record<EventType, string>> = {
  connect: 'connect() applies only in IDLE',
  established: 'no attempt in flight',
  ended: 'no attempt or connection to end',
  serving: 'no open connection',
  timer: 'no timer armed',
  'reset-backoff': 'nothing to reset',
  wake: 'wake() applies only while waiting for the next attempt',
  idle: 'idle() applies only in CONNECTING and READY (or not serving), or while waiting for resume()',
  pause: 'already paused',
  resume: 'not paused',
  shutdown: 'already shut down',
};

/** Applies `event` to `m`. Pure: the same inputs give the same outputs. */
export function transition<C>(m: MachineState<C>, event: MachineEvent<C>, env: MachineEnv): Transition<C> {
  const state = m.snapshot.state;
  if (state === 'SHUTDOWN') return noop(m, `${event.type} after SHUTDOWN`);
  if (event.type === 'shutdown') return shutdownWith(m, env, 'shutdown', undefined, 'shutdown requested');
  if (
    (event.type === 'established' || event.type === 'ended' || event.type === 'serving') &&
    event.attemptId !== m.attemptId
  ) {
    return noop(m, `${event.type} from stale attempt #${String(event.attemptId)}`);
  }
  if (event.type === 'timer' && event.at !== m.timerAt) {
    return noop(m, `stale timer, due ${formatDuration(env.now - event.at)} ago`);
  }
  if ((event.type === 'pause') === m.paused && (event.type === 'pause' || event.type === 'resume')) {
    return noop(m, `${event.type} in ${state}: ${NOT_APPLICABLE[event.type]}`);
  }
  // The table is keyed by event type, so each handler receives the event variant it declares.
  const handler = HANDLERS[state][event.type] as
    ((m: MachineState<C>, e: MachineEvent<C>, env: MachineEnv) => Transition<C>) | undefined;
  if (handler === undefined) return noop(m, `${event.type} in ${state}: ${NOT_APPLICABLE[event.type]}`);
  return handler(m, event, env);
}
