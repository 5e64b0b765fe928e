/**
 * The runner around the pure state machine: it owns the one timer and the one attempt in flight,
 * carries out the machine's effects, and publishes snapshots on `state$`.
 * @module
 */
import { type Observable, type Observer, type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import { type ConnectionManagerOptions, type ResolvedOptions, resolveOptionsShared } from './connection-options.js';
import { type Effect, type MachineEvent, type MachineState, initialState, transition } from './connection-machine.js';
import type { ConnectionSnapshot } from './connection-snapshot.js';
import type { ConnectivityState } from './connectivity-state.js';
import type { AttemptContext } from './connector.js';
import { toConnectorObservable } from './connector-observable.js';
import { LatestSubject } from '../internal/latest-subject.js';
import { defineDispose, type DisposableWhereDeclared } from '../internal/dispose.js';
import { ConnectionClosedError } from '../errors/connection-closed-error.js';
import { permanentIfProgrammingError } from './programming-error.js';
import { runGuarded } from '../internal/report-unhandled-error.js';
import { scheduleTimerAt, timerWait } from '../internal/schedule-timer.js';
import { checkOptionsObject, describeValue, optionalNumber } from '../internal/validate.js';

/** Options of {@link ConnectionManager.pause}. */
export interface PauseOptions {
  /**
   * The network is gone (the browser is offline), not only attempts held: an open connection is
   * marked as paused too (it may be dead). @defaultValue false
   */
  readonly offline?: boolean;
}

/** Options of {@link ConnectionManager.waitForStateChange}. */
export interface WaitForStateChangeOptions {
  /** Resolve `false` at this time on the scheduler clock (like gRPC's deadline). */
  readonly deadline?: number;
  /** Resolve `false` after this many milliseconds (the earlier of `deadline` and `timeout` applies). */
  readonly timeout?: number;
  /** Reject with `signal.reason` when aborted; the wait leaves nothing behind. */
  readonly signal?: AbortSignal;
}

/**
 * Runs a manager's timer: one scheduler work function for every manager, which takes the manager as
 * its state. Assigned once, in ConnectionManager's static block, which can reach its private fields.
 */
let runTimer: (this: SchedulerAction<ConnectionManager<unknown>>, manager?: ConnectionManager<unknown>) => void;

/**
 * Hands an attempt's outcome to its manager: `over` ends the attempt first (its signal aborts with
 * `reason`). Assigned once, in ConnectionManager's static block, which can reach its private fields.
 */
let settleAttempt: <C>(
  manager: ConnectionManager<C>,
  run: AttemptRun<C>,
  event: MachineEvent<C>,
  over: boolean,
  reason?: unknown,
) => void;

/**
 * One attempt in flight: the context its connector receives, and the observer of the connector's
 * Observable (so that an attempt costs one object instead of an observer and four closures). The
 * AbortController behind `signal` is created only when the connector reads `signal` (most never do);
 * a read after the attempt is over returns a signal that is already aborted with the same reason.
 */
class AttemptRun<C> implements AttemptContext, Observer<C> {
  subscription: Subscription | undefined = undefined;
  /** Errors delivered while the attempt starts may be bugs that no retry can fix (errors/programming-error.ts). */
  starting = true;
  #established = false;
  #controller: AbortController | undefined = undefined;
  #over = false;
  #reason: unknown = undefined;
  /** What the connector last reported with reportServing(): serving unless it said otherwise. */
  #serving = true;
  #notServingReason: unknown = undefined;

  constructor(
    readonly manager: ConnectionManager<C>,
    readonly id: number,
    readonly attempt: number,
    readonly timeoutAt: number,
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#over) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Marks the attempt over; the signal, if read, aborts with `reason`. Idempotent. */
  end(reason: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  reportServing(serving: unknown, reason?: unknown): void {
    if (typeof serving !== 'boolean') {
      throw new TypeError(`redialer: reportServing(serving) needs a boolean, got ${describeValue(serving)}`);
    }
    if (this.#over || serving === this.#serving) return;
    this.#serving = serving;
    this.#notServingReason = serving ? undefined : reason;
    if (this.#established)
      settleAttempt(this.manager, this, { type: 'serving', attemptId: this.id, serving, reason }, false);
  }

  next(connection: C): void {
    if (this.#established) return;
    this.#established = true;
    const event: MachineEvent<C> = this.#serving
      ? { type: 'established', attemptId: this.id, connection }
      : { type: 'established', attemptId: this.id, connection, serving: false, reason: this.#notServingReason };
    settleAttempt(this.manager, this, event, false);
  }

  error(thrown: unknown): void {
    const error = this.starting ? permanentIfProgrammingError(thrown) : thrown;
    settleAttempt(this.manager, this, { type: 'ended', attemptId: this.id, error, clean: false }, true, error);
  }

  complete(): void {
    settleAttempt(
      this.manager,
      this,
      { type: 'ended', attemptId: this.id, error: undefined, clean: true },
      true,
      new ConnectionClosedError(),
    );
  }
}

/** Options of {@link ConnectionManager.wake}. */
export interface WakeOptions {
  /** Cut the wait only if more than this is left of it, ms. @defaultValue 0 */
  readonly ifWaitExceeds?: number;
}

/**
 * Schedulers whose actions are not reused when rescheduled (rxjs's virtual time makes a new action
 * each time, and the stock one re-sorts its whole queue for it): their timers are armed afresh.
 */
const renewingSchedulers = new WeakSet<SchedulerLike>();

/**
 * Keeps one connection alive with gRPC's connection-backoff protocol, for any transport, and
 * publishes its connectivity state.
 *
 * A manager starts IDLE; `connect()` starts the first attempt. Each attempt runs through the
 * `connector` and is cut at max(backoff deadline, start + minConnectTimeout). Waits are measured from
 * the start of each attempt. `shutdown()` is terminal and leaves no timer and no attempt behind.
 *
 * @example
 * ```ts
 * const manager = new ConnectionManager({ connector: openWebSocket });
 * manager.state$.subscribe((s) => console.log(s.state, s.attempt));
 * manager.connect();
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- [Symbol.dispose] comes from defineDispose
export class ConnectionManager<C = unknown> {
  /** The rules, shared by the managers created from one options object; also the machine's input (MachineEnv). */
  readonly #options: ResolvedOptions<C>;
  #machine: MachineState<C>;
  /**
   * The subject behind `state$`, made on the first subscription: a manager nobody watches (a fleet of
   * thousands) carries none. It starts from the last published snapshot, so a subscriber that arrives
   * in the middle of a transition sees exactly what it would have seen from an eager subject.
   */
  #subject: LatestSubject<ConnectionSnapshot<C>> | undefined;
  #published: ConnectionSnapshot<C>;
  #completed = false;
  /** Events that arrive while one is being processed (re-entrant calls); made when first needed. */
  #queue: MachineEvent<C>[] | undefined;
  #draining = false;
  /**
   * The scheduler action of the one timer. It is kept after it fires (`#armed` false), so that a timer
   * armed again from its own work, or re-armed for another time, reschedules the same action: RxJS
   * keeps an action's host interval when its delay is unchanged, and no action is made per arming.
   */
  #timer: Subscription | undefined;
  /** Whether `#timer` is pending (armed for `#timerAt`). */
  #armed = false;
  #timerAt = 0;
  /** The timer the transitions in hand asked for: `null` no change, `undefined` none, else when it is due. */
  #wantedTimer: number | undefined | null = null;
  #attempt: AttemptRun<C> | undefined;

  constructor(options: ConnectionManagerOptions<C>) {
    this.#options = resolveOptionsShared(options);
    this.#machine = initialState<C>(this.#options.scheduler.now());
    this.#published = this.#machine.snapshot;
  }

  /**
   * The connectivity snapshots: replays the current one to each new subscriber, emits on every
   * change and only then, and completes after SHUTDOWN (a late subscriber still sees SHUTDOWN).
   */
  get state$(): Observable<ConnectionSnapshot<C>> {
    return this.#watch().observable;
  }

  #watch(): LatestSubject<ConnectionSnapshot<C>> {
    if (this.#subject === undefined) {
      this.#subject = new LatestSubject<ConnectionSnapshot<C>>(this.#published);
      if (this.#completed) this.#subject.complete();
    }
    return this.#subject;
  }

  /** The current snapshot. */
  get snapshot(): ConnectionSnapshot<C> {
    return this.#machine.snapshot;
  }

  /** The current state (gRPC's GetState); with `tryToConnect`, an IDLE manager starts connecting. */
  getState(tryToConnect = false): ConnectivityState {
    const state = this.#machine.snapshot.state;
    if (tryToConnect) this.connect();
    return state;
  }

  /** Requests a connection: IDLE -> CONNECTING. Elsewhere a traced no-op. */
  connect(): void {
    this.#dispatch({ type: 'connect' });
  }

  /**
   * gRPC's ResetConnectBackoff: in TRANSIENT_FAILURE the next attempt starts now (or as soon as the
   * floor on attempt starts allows, even over a wait the server asked for: this is the application's
   * "retry now"); in any state the next wait starts again from the initial backoff. Never lengthens a wait.
   */
  resetBackoff(): void {
    this.#dispatch({ type: 'reset-backoff' });
  }

  /**
   * A moment worth retrying at once has come: the network is back, the page is shown again. In
   * TRANSIENT_FAILURE with more than `ifWaitExceeds` ms of the wait left, it is {@link resetBackoff},
   * except that a wait the server asked for still holds (such moments come to every client at once);
   * elsewhere, or with less left, a traced no-op. What an adapter calls on such an event, so that
   * none of them re-implements which waits it may cut.
   */
  wake(options: WakeOptions = {}): void {
    const raw = checkOptionsObject('wake options', options);
    const ifWaitExceeds = optionalNumber('ifWaitExceeds', raw['ifWaitExceeds'], 0, { min: 0, allowInfinity: true });
    this.#dispatch({ type: 'wake', ifWaitExceeds });
  }

  /** Aborts the attempt or closes the connection and goes IDLE (an idle timeout). */
  idle(): void {
    this.#dispatch({ type: 'idle' });
  }

  /**
   * Holds attempts (for example while the host is offline): a wait in TRANSIENT_FAILURE goes IDLE
   * with `paused: true` at once, and a failed attempt or a lost connection goes there instead of
   * waiting; an attempt in flight or an open connection carries on. `connect()` while paused also
   * waits. Elsewhere (already paused) a traced no-op. With `offline: true` (the network itself is
   * gone, as the browser says) an open connection is marked too: READY with `paused: true`, since it
   * may be dead, which `connectionStatus` shows as `offline`.
   */
  pause(options?: PauseOptions): void {
    this.#dispatch(options?.offline === true ? { type: 'pause', offline: true } : { type: 'pause' });
  }

  /**
   * Ends a {@link pause}: if the manager was waiting (IDLE with `paused: true`), the next attempt
   * starts now with a fresh backoff.
   */
  resume(): void {
    this.#dispatch({ type: 'resume' });
  }

  /** Terminal and idempotent: aborts the attempt, closes the connection, clears the timer, completes `state$`. */
  shutdown(): void {
    this.#dispatch({ type: 'shutdown' });
  }

  /**
   * gRPC's WaitForStateChange: resolves `true` once the state differs from `source` (at once if it
   * already does), `false` at the deadline, or `false` at once when both are SHUTDOWN (it can never
   * change). Rejects with the signal's reason when aborted.
   */
  waitForStateChange(source: ConnectivityState, options: WaitForStateChangeOptions = {}): Promise<boolean> {
    const raw = checkOptionsObject('waitForStateChange options', options);
    const { scheduler } = this.#options;
    const now = scheduler.now();
    const deadline = Math.min(
      optionalNumber('deadline', raw['deadline'], Infinity, { allowInfinity: true }),
      now + optionalNumber('timeout', raw['timeout'], Infinity, { min: 0, allowInfinity: true }),
    );
    const { signal } = options;
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const state = this.#machine.snapshot.state;
      if (state !== source) {
        resolve(true);
        return;
      }
      if (state === 'SHUTDOWN' || deadline <= now) {
        resolve(false);
        return;
      }
      const timer = new Subscription();
      const settle = (outcome: () => void): void => {
        subscription.unsubscribe();
        timer.unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const onAbort = (): void => {
        settle(() => {
          reject(signal?.reason);
        });
      };
      const subscription = this.#watch().observable.subscribe((snapshot) => {
        if (snapshot.state !== source)
          settle(() => {
            resolve(true);
          });
      });
      // Never early, and a deadline past 2^31 - 1 ms away is waited in full.
      timer.add(
        scheduleTimerAt(scheduler, deadline, () => {
          settle(() => {
            resolve(false);
          });
        }),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  static {
    runTimer = function (this: SchedulerAction<ConnectionManager<unknown>>, manager) {
      if (manager === undefined) return;
      const { scheduler } = manager.#options;
      if (scheduler.now() < manager.#timerAt) {
        manager.#timer = this.schedule(manager, timerWait(manager.#timerAt, scheduler.now()));
        return;
      }
      manager.#armed = false;
      manager.#dispatch({ type: 'timer', at: manager.#timerAt });
    };
    settleAttempt = (manager, run, event, over, reason) => {
      if (over) {
        if (manager.#attempt === run) manager.#attempt = undefined;
        run.end(reason);
      }
      manager.#dispatch(event);
    };
  }

  #dispatch(event: MachineEvent<C>): void {
    if (this.#draining) {
      (this.#queue ??= []).push(event);
      return;
    }
    this.#draining = true;
    try {
      this.#process(event);
      const queue = this.#queue;
      if (queue !== undefined) {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) this.#process(next);
      }
    } finally {
      this.#draining = false;
      this.#queue = undefined;
      this.#armTimer();
    }
  }

  /**
   * Arms (or clears) the one timer as the transitions just processed left it. Applied once per batch
   * of events rather than per effect: a failed attempt that is retried in the same batch asks for the
   * cut timer and then for the retry timer, and only the last one needs a host timer.
   */
  #armTimer(): void {
    const at = this.#wantedTimer;
    if (at === null) {
      // A fired timer that this batch did not arm again is let go (it holds no host timer).
      if (!this.#armed) this.#timer = undefined;
      return;
    }
    this.#wantedTimer = null;
    if (at === undefined) {
      // Cancelled: the action is closed and dropped, so that nothing pending holds the host.
      this.#timer?.unsubscribe();
      this.#timer = undefined;
      this.#armed = false;
      return;
    }
    if (this.#armed && this.#timerAt === at) return;
    this.#timerAt = at;
    this.#armed = true;
    const { scheduler } = this.#options;
    const wait = timerWait(at, scheduler.now());
    const action = this.#timer as (Subscription & Partial<Pick<SchedulerAction<unknown>, 'schedule'>>) | undefined;
    if (
      action !== undefined &&
      !action.closed &&
      typeof action.schedule === 'function' &&
      !renewingSchedulers.has(scheduler)
    ) {
      const next = action.schedule(this, wait);
      if (next === action) return;
      // A scheduler whose actions come back new when rescheduled: the old one is unlinked from the new
      // (which keeps it as its parent, a chain as long as the manager's life) and dropped, and timers
      // on this scheduler are armed afresh from now on.
      action.remove(next);
      action.unsubscribe();
      renewingSchedulers.add(scheduler);
      this.#timer = next;
      return;
    }
    // One work function for every manager's timer, with the manager as its state: no closure or record
    // per arming. Like scheduleTimerAt, it re-arms a timer that fires early by the scheduler's clock (no
    // attempt is cut, and none starts, before its time) or that is due beyond 2^31 - 1 ms. The work is
    // shared by managers of every connection type, so it takes them as ConnectionManager<unknown>.
    action?.unsubscribe();
    this.#timer = scheduler.schedule(runTimer, wait, this as ConnectionManager<unknown>);
  }

  #process(event: MachineEvent<C>): void {
    const before = this.#machine;
    const options = this.#options;
    const now = options.scheduler.now();
    // The resolved options are the machine's input, with the event's time set just before it runs.
    options.now = now;
    const result = transition(before, event, options);
    this.#machine = result.state;
    let complete = false;
    for (const effect of result.effects) {
      if (effect.type === 'complete') complete = true;
      else this.#run(effect);
    }
    if (result.state.snapshot !== before.snapshot) {
      this.#published = result.state.snapshot;
      this.#subject?.next(result.state.snapshot);
    }
    if (complete) {
      this.#completed = true;
      this.#subject?.complete();
    }
    if (options.trace !== undefined) {
      const entry = {
        time: now,
        event: event.type,
        from: before.snapshot.state,
        to: result.state.snapshot.state,
        detail: result.detail,
      };
      runGuarded(() => {
        options.trace?.(entry);
      }, options.onUnhandledError);
    }
  }

  #run(effect: Exclude<Effect, { type: 'complete' }>): void {
    switch (effect.type) {
      case 'set-timer':
        this.#wantedTimer = effect.at;
        return;
      case 'clear-timer':
        this.#wantedTimer = undefined;
        return;
      case 'start-attempt':
        this.#startAttempt(effect.attemptId, effect.attempt, effect.timeoutAt);
        return;
      case 'stop-attempt': {
        const attempt = this.#attempt;
        if (attempt?.id !== effect.attemptId) return;
        this.#attempt = undefined;
        // A connector whose teardown throws must not leave the manager half-way through a transition.
        runGuarded(() => attempt.subscription?.unsubscribe(), this.#options.onUnhandledError);
        attempt.end(effect.reason);
        return;
      }
    }
  }

  #startAttempt(id: number, attempt: number, timeoutAt: number): void {
    if (this.#attempt !== undefined) {
      throw new Error(
        `redialer: internal error: attempt #${String(id)} started while #${String(this.#attempt.id)} is in flight`,
      );
    }
    const run = new AttemptRun<C>(this, id, attempt, timeoutAt);
    this.#attempt = run;
    let source: Observable<C>;
    try {
      source = toConnectorObservable<C>(this.#options.connector(run));
    } catch (thrown) {
      // A connector that throws fails the attempt as an Observable that errors would.
      run.error(thrown);
      return;
    }
    run.subscription = source.subscribe(run);
    run.starting = false;
  }
}

// `[Symbol.dispose]()` is `shutdown()`, for `using` declarations; typed where the consumer's lib has it.
defineDispose(ConnectionManager.prototype, function dispose(this: ConnectionManager) {
  this.shutdown();
});

/** `using manager = new ConnectionManager(…)` shuts the manager down at the end of the scope. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars -- merged into the class
export interface ConnectionManager<C> extends DisposableWhereDeclared {}

/** Creates a {@link ConnectionManager}. */
export function createConnectionManager<C>(options: ConnectionManagerOptions<C>): ConnectionManager<C> {
  return new ConnectionManager(options);
}
