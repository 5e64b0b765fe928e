/**
 * `circuitBreaker()`'s options: their types, Polly's defaults, and the one place they are checked.
 * @module
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { MAX_DELAY_MS } from '../../../backoff/backoff.js';
import { constantBackoff } from '../../../backoff/constant-backoff.js';
import {
  checkNumber,
  checkOptionsObject,
  describeValue,
  optionalFunction,
  optionalNumber,
  schedulerOption,
  checkText,
} from '../../../internal/validate.js';
import type { MeterLike } from '../metrics/meter-like.js';
import type { BreakerStateStore } from './breaker-state-store.js';
import type { FailureRatioRules } from './failure-ratio.js';

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

/** Options of `circuitBreaker()`. Times are in milliseconds. */
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
  /**
   * Called after every event that changed the breaker's state or was refused (not for reads of a
   * state that stayed as it was), with what the decision did in words, as the connection manager's
   * `trace`. An exception it throws is reported, never thrown into the call.
   */
  readonly trace?: (entry: BreakerTraceEntry) => void;
}

/** One decision of a breaker, for {@link CircuitBreakerOptions.trace}. */
export interface BreakerTraceEntry {
  /** Scheduler time of the event. */
  readonly time: number;
  /** The event: `acquire`, `succeeded`, `failed`, `break-elapsed`, `tick`, `reset`, … */
  readonly event: string;
  /** The state before the event. */
  readonly from: 'closed' | 'open' | 'half-open';
  /** The state after it (equal to `from` when it stayed). */
  readonly to: 'closed' | 'open' | 'half-open';
  /** What happened, e.g. `closed -> open (3 consecutive failures; a break of 5 s)`. */
  readonly detail: string;
}

/** The options of {@link CircuitBreakerOptions}, checked, with their defaults. */
export interface ResolvedBreakerOptions {
  readonly name: string;
  readonly consecutiveFailures: number | undefined;
  readonly ratio: FailureRatioRules;
  readonly breakDuration: BackoffPolicy;
  readonly isFailure: (error: unknown) => boolean;
  readonly scheduler: SchedulerLike;
  readonly random: RandomSource;
  readonly store: BreakerStateStore | undefined;
  readonly meter: MeterLike | undefined;
  readonly prefix: string;
  readonly trace: ((entry: BreakerTraceEntry) => void) | undefined;
}

/**
 * Checks `circuitBreaker()`'s options: a bad one is a TypeError or RangeError naming the option and
 * the value.
 */
export function resolveBreakerOptions(options: CircuitBreakerOptions): ResolvedBreakerOptions {
  const raw = checkOptionsObject('circuitBreaker options', options);
  const name = checkText('name', raw['name'] ?? 'breaker');
  const consecutive =
    raw['consecutiveFailures'] === undefined
      ? undefined
      : checkNumber('consecutiveFailures', raw['consecutiveFailures'], { min: 1, integer: true });
  const ratio = optionalNumber('failureRatio', raw['failureRatio'], BREAKER_DEFAULTS.failureRatio, {
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
  let breakDuration: BackoffPolicy;
  if (typeof breakRaw === 'number') {
    breakDuration = constantBackoff(checkNumber('breakDuration', breakRaw, { min: 0, max: MAX_DELAY_MS }));
  } else if (typeof breakRaw === 'object' && typeof (breakRaw as { first?: unknown }).first === 'function') {
    breakDuration = breakRaw as BackoffPolicy;
  } else {
    throw new TypeError(
      `redialer: option "breakDuration" must be a number of ms or a backoff policy, got ${describeValue(breakRaw)}`,
    );
  }
  const isFailure = optionalFunction<(error: unknown) => boolean>('isFailure', raw['isFailure'], () => true);
  const scheduler = schedulerOption(raw['scheduler'], asyncScheduler);
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
  const prefix = checkText('prefix', raw['prefix'] ?? 'redialer.breaker');
  const meter = raw['meter'] as Partial<MeterLike> | undefined;
  if (
    meter !== undefined &&
    (typeof meter !== 'object' ||
      typeof meter.createCounter !== 'function' ||
      typeof meter.createObservableGauge !== 'function')
  ) {
    throw new TypeError(
      `redialer: option "meter" must have createCounter() and createObservableGauge(), got ${describeValue(meter)}`,
    );
  }
  return {
    name,
    consecutiveFailures: consecutive,
    ratio: { failureRatio: ratio, minimumThroughput, window: windowMs },
    breakDuration,
    isFailure,
    scheduler,
    random,
    store,
    meter: meter as MeterLike | undefined,
    prefix,
    trace: raw['trace'] === undefined ? undefined : optionalFunction('trace', raw['trace'], () => undefined),
  };
}
