/**
 * `circuitBreaker(options)`: stops calling a dependency that keeps failing, lets one probe through
 * after a break, and publishes its state. Semantics and defaults follow Polly v8 and cockatiel.
 * @module
 */
import { asyncScheduler, BehaviorSubject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Backoff, BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { MAX_DELAY_MS } from '../../../backoff/backoff.js';
import { stepBackoff } from '../../../backoff/backoff-step.js';
import { constantBackoff } from '../../../backoff/constant-backoff.js';
import { scheduleTimerAt } from '../../../internal/schedule-timer.js';
import {
  checkNumber,
  checkOptionsObject,
  describeValue,
  optionalFunction,
  optionalNumber,
} from '../../../internal/validate.js';
import { SlidingWindow } from '../budgets/sliding-window.js';
import type {
  CounterLike,
  MeterLike,
  MetricAttributes,
  ObservableResultLike,
  ObservableGaugeLike,
} from '../metrics/meter-like.js';
import type { BreakerSnapshot } from './breaker-decision.js';
import type { BreakerStateStore, SharedBreakerState } from './breaker-state-store.js';
import { BrokenCircuitError } from './broken-circuit-error.js';

/**
 * Polly v8's `CircuitBreakerStrategyOptions` defaults (pollydocs.org, Polly.CircuitBreaker): failure
 * ratio 0.1 over a 30 s sampling window with at least 100 calls, then a 5 s break.
 */
export const BREAKER_DEFAULTS = Object.freeze({
  failureRatio: 0.1,
  minimumThroughput: 100,
  window: 30_000,
  breakDuration: 5000,
});

export type { BreakerSnapshot } from './breaker-decision.js';

/** Options of {@link circuitBreaker}. Times are in milliseconds. */
export interface CircuitBreakerOptions {
  /** A name for errors, metrics and the shared store. @defaultValue 'breaker' */
  readonly name?: string;
  /**
   * Consecutive-failure mode: open after this many failures in a row (cockatiel's
   * `ConsecutiveBreaker`). When set, the ratio options do not apply. @defaultValue none: ratio mode
   */
  readonly consecutiveFailures?: number;
  /** Ratio mode: open when failures / calls over `window` reach this, in (0, 1]. @defaultValue 0.1 */
  readonly failureRatio?: number;
  /** Ratio mode: the calls the window must hold before the ratio is judged. @defaultValue 100 */
  readonly minimumThroughput?: number;
  /** Ratio mode: the sampling window. @defaultValue 30000 */
  readonly window?: number;
  /**
   * How long the breaker stays open: a number, or a backoff policy whose next step applies each time
   * a failed probe opens it again (reset when a probe succeeds). @defaultValue 5000
   */
  readonly breakDuration?: number | BackoffPolicy;
  /**
   * Which errors count as failures. Cancelled calls never do. @defaultValue every error (Polly and
   * cockatiel count every exception)
   */
  readonly isFailure?: (error: unknown) => boolean;
  /** The clock and the timer that ends a break. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
  /** The random source for a break-duration policy with jitter. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /** Share opens and closes with other breakers of the same name (see {@link BreakerStateStore}). */
  readonly store?: BreakerStateStore;
  /**
   * An OpenTelemetry meter: counters `<prefix>.opens` and `<prefix>.rejected`, and a gauge
   * `<prefix>.state` (0 closed, 1 half-open, 2 open), each with `{ breaker: name }`.
   */
  readonly meter?: MeterLike;
  /** The instrument name prefix. @defaultValue 'redialer.breaker' */
  readonly prefix?: string;
}

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
  const raw = checkOptionsObject('circuitBreaker options', options);
  const name = raw['name'] ?? 'breaker';
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`redialer: option "name" must be a non-empty string, got ${describeValue(name)}`);
  const consecutive =
    raw['consecutiveFailures'] === undefined
      ? undefined
      : checkNumber('consecutiveFailures', raw['consecutiveFailures'], { min: 1, integer: true });
  const failureRatio = optionalNumber('failureRatio', raw['failureRatio'], BREAKER_DEFAULTS.failureRatio, {
    min: Number.MIN_VALUE,
    max: 1,
  });
  const minimumThroughput = optionalNumber(
    'minimumThroughput',
    raw['minimumThroughput'],
    BREAKER_DEFAULTS.minimumThroughput,
    { min: 1, integer: true },
  );
  const windowMs = optionalNumber('window', raw['window'], BREAKER_DEFAULTS.window, { min: 1 });
  const breakRaw = raw['breakDuration'] ?? BREAKER_DEFAULTS.breakDuration;
  let breakPolicy: BackoffPolicy;
  if (typeof breakRaw === 'number') {
    breakPolicy = constantBackoff(checkNumber('breakDuration', breakRaw, { min: 0, max: MAX_DELAY_MS }));
  } else if (typeof breakRaw === 'object' && typeof (breakRaw as { first?: unknown }).first === 'function') {
    breakPolicy = breakRaw as BackoffPolicy;
  } else {
    throw new TypeError(
      `redialer: option "breakDuration" must be a number of ms or a backoff policy, got ${describeValue(breakRaw)}`,
    );
  }
  const isFailure = optionalFunction<(error: unknown) => boolean>('isFailure', raw['isFailure'], () => true);
  const scheduler = (raw['scheduler'] ?? asyncScheduler) as SchedulerLike;
  if (
    typeof (scheduler as { schedule?: unknown }).schedule !== 'function' ||
    typeof (scheduler as { now?: unknown }).now !== 'function'
  ) {
    throw new TypeError(`redialer: option "scheduler" must be an RxJS scheduler, got ${describeValue(scheduler)}`);
  }
  const random = optionalFunction<RandomSource>('random', raw['random'], Math.random);
  const store = raw['store'] as BreakerStateStore | undefined;
  if (
    store !== undefined &&
    (typeof (store as unknown) !== 'object' ||
      typeof store.get !== 'function' ||
      typeof store.set !== 'function' ||
      typeof store.subscribe !== 'function')
  ) {
    throw new TypeError(`redialer: option "store" must have get(), set() and subscribe(), got ${describeValue(store)}`);
  }
  const prefix = raw['prefix'] ?? 'redialer.breaker';
  if (typeof prefix !== 'string' || prefix === '')
    throw new TypeError(`redialer: option "prefix" must be a non-empty string, got ${describeValue(prefix)}`);

  const now = (): number => scheduler.now();
  const newWindow = (): SlidingWindow<'success' | 'failure'> => new SlidingWindow(windowMs, now);
  let window = newWindow();
  let inARow = 0;
  let breakBackoff: Backoff | undefined;
  let probeOut = false;
  let isolated = false;
  let epoch = 0;
  let timer: Subscription | undefined;
  let disposed = false;
  const subject = new BehaviorSubject<BreakerSnapshot>({ state: 'closed', since: now(), opens: 0 });
  const attributes: MetricAttributes = { breaker: name };
  let counters: { opens: CounterLike; rejected: CounterLike } | undefined;
  let gauge: { instrument: ObservableGaugeLike; callback: (result: ObservableResultLike) => void } | undefined;

  const set = (snapshot: BreakerSnapshot): void => {
    epoch += 1;
    probeOut = false;
    timer?.unsubscribe();
    timer = undefined;
    if (snapshot.state === 'open' && snapshot.until !== Infinity) {
      timer = scheduleTimerAt(scheduler, snapshot.until, () => {
        timer = undefined;
        if (subject.value === snapshot) set({ state: 'half-open', since: now(), opens: snapshot.opens });
      });
    }
    if (!disposed) subject.next(snapshot);
  };

  const open = (lastError: unknown, publish: boolean): void => {
    const current = subject.value;
    const opens = current.opens + 1;
    const step = stepBackoff(breakPolicy, breakBackoff, random);
    // A broken policy is a programming error: the breaker stays open (no probe) until reset(), and
    // says why in lastError, rather than guessing a break.
    if (step.ok) breakBackoff = step.backoff;
    const until = step.ok ? now() + step.delay : Infinity;
    counters?.opens.add(1, attributes);
    set({ state: 'open', since: now(), until, opens, lastError: step.ok ? lastError : step.error });
    if (publish) store?.set({ state: 'open', until, opens });
  };

  const close = (publish: boolean): void => {
    breakBackoff = undefined;
    inARow = 0;
    window = newWindow();
    set({ state: 'closed', since: now(), opens: 0 });
    if (publish) store?.set({ state: 'closed' });
  };

  const follow = (shared: SharedBreakerState): void => {
    if (disposed || isolated) return;
    const current = subject.value;
    if (shared.state === 'closed') {
      if (current.state !== 'closed') close(false);
      return;
    }
    if (current.state === 'open' && current.until >= shared.until) return;
    if (shared.until <= now()) return;
    set({
      state: 'open',
      since: now(),
      until: shared.until,
      opens: Math.max(shared.opens, current.opens),
      lastError: undefined,
    });
  };

  /** The snapshot, after ending a break that is due (a timer may not have run yet). */
  const current = (): BreakerSnapshot => {
    const snapshot = subject.value;
    if (snapshot.state === 'open' && now() >= snapshot.until)
      set({ state: 'half-open', since: now(), opens: snapshot.opens });
    return subject.value;
  };

  const judge = (error: unknown): void => {
    if (consecutive !== undefined) {
      if (inARow >= consecutive) open(error, true);
      return;
    }
    const failures = window.count('failure');
    const calls = failures + window.count('success');
    if (calls >= minimumThroughput && failures / calls >= failureRatio) open(error, true);
  };

  const tryAcquire = (): BreakerPermit | undefined => {
    const snapshot = current();
    if (disposed) return undefined;
    if (snapshot.state === 'open' || (snapshot.state === 'half-open' && probeOut)) {
      counters?.rejected.add(1, attributes);
      return undefined;
    }
    const probe = snapshot.state === 'half-open';
    if (probe) probeOut = true;
    const issued = epoch;
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    return {
      probe,
      success: () => {
        settle(() => {
          window.add('success');
          if (issued !== epoch) return;
          inARow = 0;
          if (probe) close(true);
        });
      },
      failure: (error) => {
        settle(() => {
          let counts: boolean;
          try {
            counts = isFailure(error);
          } catch {
            counts = true;
          }
          if (!counts) {
            // Not a health signal: a probe that ends so proves nothing, so its slot is freed.
            if (probe && issued === epoch) probeOut = false;
            return;
          }
          window.add('failure');
          if (issued !== epoch) return;
          inARow += 1;
          if (probe) open(error, true);
          else judge(error);
        });
      },
      cancel: () => {
        settle(() => {
          if (probe && issued === epoch) probeOut = false;
        });
      },
    };
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
      const permit = tryAcquire();
      if (permit === undefined) {
        const snapshot = subject.value;
        const until = snapshot.state === 'open' ? snapshot.until : now();
        const cause = snapshot.state === 'open' ? snapshot.lastError : undefined;
        throw new BrokenCircuitError(name, until, cause === undefined ? undefined : { cause });
      }
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
      isolated = true;
      const opens = subject.value.opens + 1;
      set({ state: 'open', since: now(), until: Infinity, opens, lastError: undefined });
      store?.set({ state: 'open', until: Infinity, opens });
    },
    reset() {
      isolated = false;
      close(true);
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

  const meter = raw['meter'] as Partial<MeterLike> | undefined;
  if (meter !== undefined) {
    if (
      typeof meter !== 'object' ||
      typeof meter.createCounter !== 'function' ||
      typeof meter.createObservableGauge !== 'function'
    ) {
      throw new TypeError(
        `redialer: option "meter" must have createCounter() and createObservableGauge(), got ${describeValue(meter)}`,
      );
    }
    counters = {
      opens: meter.createCounter(`${prefix}.opens`, {
        description: 'Times the circuit breaker opened',
        unit: '{event}',
      }),
      rejected: meter.createCounter(`${prefix}.rejected`, {
        description: 'Calls refused by an open circuit breaker',
        unit: '{call}',
      }),
    };
    const instrument = meter.createObservableGauge(`${prefix}.state`, {
      description: 'Circuit breaker state: 0 closed, 1 half-open, 2 open',
      unit: '1',
    });
    const callback = (result: ObservableResultLike): void => {
      result.observe(STATE_VALUE[current().state], attributes);
    };
    instrument.addCallback(callback);
    gauge = { instrument, callback };
  }
  const initial = store?.get();
  if (initial !== undefined) follow(initial);
  const unsubscribeStore = store?.subscribe(follow);
  return breaker;
}
