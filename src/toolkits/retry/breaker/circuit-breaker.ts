/**
 * `circuitBreaker(options)`: stops calling a dependency that keeps failing, lets one probe through
 * after a break, and publishes its state. Semantics and defaults follow Polly v8 and cockatiel.
 *
 * This module is the runner: it takes the options as breaker-options.ts checked them, holds the
 * state, and carries out the effects of {@link decide} (breaker-decision.ts) — the break timer on the
 * injected scheduler, `state$`, the shared store and the meter. When the breaker opens is a
 * {@link TripStrategy} (consecutive-failures.ts, failure-ratio.ts).
 * @module
 */
import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import { scheduleTimerAt } from '../../../internal/schedule-timer.js';
import type {
  CounterLike,
  MetricAttributes,
  ObservableResultLike,
  ObservableGaugeLike,
} from '../metrics/meter-like.js';
import {
  type BreakerEffect,
  type BreakerEvent,
  type BreakerRules,
  type BreakerSnapshot,
  type BreakerState,
  type PermitTicket,
  decide,
  initialBreakerState,
  refusalOf,
} from './breaker-decision.js';
import {
  type BreakerTraceEntry,
  type CircuitBreakerOptions,
  type ResolvedBreakerOptions,
  resolveBreakerOptions,
} from './breaker-options.js';
import { runGuarded } from '../../../internal/report-unhandled-error.js';
import type { SharedBreakerState } from './breaker-state-store.js';
import { BrokenCircuitError } from './broken-circuit-error.js';
import { consecutiveFailures } from './consecutive-failures.js';
import { failureRatio } from './failure-ratio.js';
import type { TripStrategy } from './trip-strategy.js';

export { BREAKER_DEFAULTS, type BreakerTraceEntry, type CircuitBreakerOptions } from './breaker-options.js';
export type { BreakerSnapshot } from './breaker-decision.js';

/** One admitted call: report how it ended, exactly once (later reports are ignored). */
export interface BreakerPermit {
  /** Whether this call is the half-open probe. */
  readonly probe: boolean;
  /** The call succeeded. */
  success(): void;
  /** The call failed with `error` (counted only if `isFailure(error)`). */
  failure(error: unknown): void;
  /** The call was cancelled by its caller: not counted; a probe's slot is freed. */
  cancel(): void;
}

/** What {@link CircuitBreaker.execute} passes to the operation. */
export interface BreakerCallContext {
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
}

/** A circuit breaker; see {@link circuitBreaker}. */
export interface CircuitBreaker {
  /** The name given in the options. */
  readonly name: string;
  /** The state: replays the latest; emits on every change; completes on `dispose()`. */
  readonly state$: Observable<BreakerSnapshot>;
  /** The current state (a due break ends when read). */
  readonly snapshot: BreakerSnapshot;
  /**
   * Runs `operation` if the breaker admits the call, else rejects with a {@link BrokenCircuitError}
   * without running it. A rejection while the caller's `signal` is aborted counts as a cancellation.
   */
  execute<T>(
    operation: (context: BreakerCallContext) => T | PromiseLike<T>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<T>;
  /** Admits one call or returns undefined (open, or the half-open probe is taken): the low-level form of `execute`. */
  tryAcquire(): BreakerPermit | undefined;
  /** Opens the breaker by hand until `reset()` (Polly's `Isolate`). */
  isolate(): void;
  /** Closes the breaker and clears its counts. */
  reset(): void;
  /** Clears the break timer, detaches from the store and the meter, completes `state$`. Idempotent. */
  dispose(): void;
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

const STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * Creates a circuit breaker, usable alone around any async function and inside `failover()`.
 *
 * - **closed**: calls run; failures are counted — in a row (`consecutiveFailures`) or as a ratio over
 *   `window` once `minimumThroughput` calls were seen (`failureRatio`, the default mode).
 * - **open**: calls are refused with {@link BrokenCircuitError} until `until` (`breakDuration`); a timer
 *   moves the breaker to half-open exactly then.
 * - **half-open**: one probe at a time; its success closes the breaker (and resets the break
 *   backoff), its failure opens it again for the next break duration, its cancellation frees the slot.
 *
 * A cancelled call (the caller's signal aborted) is never a failure. Results of calls admitted before
 * the last state change count in the window but cannot move the state.
 *
 * @example
 * ```ts
 * import { circuitBreaker } from 'redialer/retry';
 *
 * const breaker = circuitBreaker({ name: 'payments', consecutiveFailures: 5, breakDuration: 10_000 });
 * breaker.state$.subscribe((s) => console.log(s.state));
 * const receipt = await breaker.execute(({ signal }) => fetch('https://pay.example/charge', { signal }));
 * ```
 */
export function circuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const resolved = resolveBreakerOptions(options);
  return resolved.consecutiveFailures === undefined
    ? startBreaker(resolved, failureRatio(resolved.ratio))
    : startBreaker(resolved, consecutiveFailures(resolved.consecutiveFailures));
}

function isAdmission(effect: BreakerEffect): effect is Extract<BreakerEffect, { type: 'admit' | 'refuse' }> {
  return effect.type === 'admit' || effect.type === 'refuse';
}

/** Runs a breaker whose trip rule is `strategy`. */
function startBreaker<S>(o: ResolvedBreakerOptions, strategy: TripStrategy<S>): CircuitBreaker {
  const { name, scheduler, store, isFailure } = o;
  const rules: BreakerRules<S> = { strategy, breakDuration: o.breakDuration, random: o.random };
  const now = (): number => scheduler.now();
  let state: BreakerState<S> = initialBreakerState(strategy, now());
  let timer: Subscription | undefined;
  let disposed = false;
  const subject = new BehaviorSubject<BreakerSnapshot>(state.snapshot);
  const attributes: MetricAttributes = { breaker: name };
  let counters: { opens: CounterLike; rejected: CounterLike } | undefined;
  let gauge: { instrument: ObservableGaugeLike; callback: (result: ObservableResultLike) => void } | undefined;

  const breakElapsed = (generation: number): void => {
    timer = undefined;
    dispatch({ type: 'break-elapsed', generation, now: now() });
  };

  /** Carries out one effect (`admit` and `refuse` also go back to the caller of {@link dispatch}). */
  const run = (effect: BreakerEffect): void => {
    switch (effect.type) {
      case 'count-open':
        counters?.opens.add(1, attributes);
        return;
      case 'refuse':
        counters?.rejected.add(1, attributes);
        return;
      case 'clear-timer':
        timer?.unsubscribe();
        timer = undefined;
        return;
      case 'arm-timer':
        // A disposed breaker arms nothing: its state$ is complete and no one could see the break end.
        if (!disposed) timer = scheduleTimerAt(scheduler, effect.at, breakElapsed, effect.generation);
        return;
      case 'emit':
        if (!disposed) subject.next(effect.snapshot);
        return;
      case 'persist':
        store?.set(effect.shared);
        return;
      case 'admit':
        return;
    }
  };

  /**
   * Decides, commits the new state, then runs the effects in order. A subscriber of `state$` or a
   * store listener that calls back into this breaker while an effect runs (failover() does) sees the
   * committed state, and its own effects run at once, before the rest of these.
   */
  const dispatch = (event: BreakerEvent): readonly BreakerEffect[] => {
    const before = state;
    const transition = decide(state, event, rules);
    state = transition.state;
    for (const effect of transition.effects) run(effect);
    if (o.trace !== undefined && !(event.type === 'tick' && transition.state === before)) {
      const entry: BreakerTraceEntry = {
        time: now(),
        event: event.type,
        from: before.snapshot.state,
        to: transition.state.snapshot.state,
        detail: transition.detail,
      };
      runGuarded(() => {
        o.trace?.(entry);
      }, undefined);
    }
    return transition.effects;
  };

  /** The snapshot, after ending a break that is due (a timer may not have run yet). */
  const current = (): BreakerSnapshot => {
    dispatch({ type: 'tick', now: now() });
    return subject.value;
  };

  /** Admits a call or says why not; undefined once disposed. */
  const acquire = (): Extract<BreakerEffect, { type: 'admit' | 'refuse' }> | undefined => {
    // A due break ends, and is published, before the call is judged: a subscriber that takes the
    // probe on that change has it.
    current();
    if (disposed) return undefined;
    return dispatch({ type: 'acquire', now: now() }).find(isAdmission);
  };

  const counts = (error: unknown): boolean => {
    try {
      // Read as the breaker always has: any truthy answer counts.
      const verdict: unknown = isFailure(error);
      return Boolean(verdict);
    } catch {
      return true;
    }
  };

  const permitFor = (permit: PermitTicket): BreakerPermit => {
    let settled = false;
    const settle = (event: () => BreakerEvent): void => {
      if (settled) return;
      settled = true;
      dispatch(event());
    };
    return {
      probe: permit.probe,
      success: () => {
        settle(() => ({ type: 'succeeded', permit, now: now() }));
      },
      failure: (error) => {
        settle(() => ({ type: 'failed', permit, counted: counts(error), error, now: now() }));
      },
      cancel: () => {
        settle(() => ({ type: 'cancelled', permit, now: now() }));
      },
    };
  };

  const tryAcquire = (): BreakerPermit | undefined => {
    const admission = acquire();
    return admission?.type === 'admit' ? permitFor(admission.permit) : undefined;
  };

  const breaker: CircuitBreaker = {
    name,
    state$: subject.asObservable(),
    get snapshot() {
      return current();
    },
    tryAcquire,
    async execute<T>(
      operation: (context: BreakerCallContext) => T | PromiseLike<T>,
      callOptions: { readonly signal?: AbortSignal } = {},
    ): Promise<T> {
      const signal = callOptions.signal;
      if (signal?.aborted === true) throw signal.reason;
      const admission = acquire();
      if (admission?.type !== 'admit') {
        const t = now();
        const { until, cause } = admission ?? refusalOf(subject.value, t);
        throw new BrokenCircuitError(name, until, cause === undefined ? { now: t } : { cause, now: t });
      }
      const permit = permitFor(admission.permit);
      try {
        const value = await operation({ signal });
        permit.success();
        return value;
      } catch (error) {
        // Read again after the await: the caller may have aborted meanwhile.
        if (isAborted(signal)) permit.cancel();
        else permit.failure(error);
        throw error;
      }
    },
    isolate() {
      dispatch({ type: 'isolate', now: now() });
    },
    reset() {
      dispatch({ type: 'reset', now: now() });
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      timer?.unsubscribe();
      timer = undefined;
      unsubscribeStore?.();
      if (gauge !== undefined) gauge.instrument.removeCallback(gauge.callback);
      gauge = undefined;
      subject.complete();
    },
  };

  const meter = o.meter;
  if (meter !== undefined) {
    counters = {
      opens: meter.createCounter(`${o.prefix}.opens`, {
        description: 'Times the circuit breaker opened',
        unit: '{event}',
      }),
      rejected: meter.createCounter(`${o.prefix}.rejected`, {
        description: 'Calls refused by an open circuit breaker',
        unit: '{call}',
      }),
    };
    const instrument = meter.createObservableGauge(`${o.prefix}.state`, {
      description: 'Circuit breaker state: 0 closed, 1 half-open, 2 open',
      unit: '1',
    });
    const callback = (result: ObservableResultLike): void => {
      result.observe(STATE_VALUE[current().state], attributes);
    };
    instrument.addCallback(callback);
    gauge = { instrument, callback };
  }
  const follow = (shared: SharedBreakerState): void => {
    if (!disposed) dispatch({ type: 'shared', shared, now: now() });
  };
  const initial = store?.get();
  if (initial !== undefined) follow(initial);
  const unsubscribeStore = store?.subscribe(follow);
  return breaker;
}
