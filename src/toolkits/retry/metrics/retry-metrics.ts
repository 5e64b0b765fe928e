/**
 * Retry metrics: attempts, retries, give-ups, permanent failures and throttled retries, in total and
 * over a sliding window, with the retry ratio — as an Observable, through an OpenTelemetry-like meter,
 * and with a hook when the ratio crosses a threshold. Feed it by passing it as `metrics` to `retry()`
 * or `retryBackoff()`, or from a connection manager with {@link recordConnectionAttempts}.
 * @module
 */
import { asyncScheduler, BehaviorSubject, type Observable } from 'rxjs';
import {
  checkOptionsObject,
  describeValue,
  optionalClock,
  optionalFunction,
  optionalNumber,
  checkText,
  optionalObject,
} from '../../../internal/validate.js';
import type {
  CounterLike,
  MeterLike,
  MetricAttributes,
  ObservableGaugeLike,
  ObservableResultLike,
} from './meter-like.js';
import type { RetryEvent, RetryEventSink } from '../core/retry-event.js';
import { SlidingWindow } from '../budgets/sliding-window.js';
import { reportUnhandledError } from '../../../internal/report-unhandled-error.js';

/** Counts of one kind of event. */
export interface RetryCounts {
  /** Attempts started, first attempts and retries. */
  readonly attempts: number;
  /** Attempts that were retries (attempt number > 1). */
  readonly retries: number;
  /** Successful attempts. */
  readonly successes: number;
  /** Loops that gave up on a transient failure (throttled ones included). */
  readonly giveUps: number;
  /** Failures found permanent, not retried. */
  readonly permanentFailures: number;
  /** Retries refused by a retry budget (each also counts as a give-up). */
  readonly throttledRetries: number;
}

/** What {@link RetryMetrics.snapshot$} emits after each event. */
export interface RetryMetricsSnapshot {
  /** Scheduler time of the snapshot. */
  readonly at: number;
  /** Counts since creation. */
  readonly total: RetryCounts;
  /** Counts over the sliding window. */
  readonly window: RetryCounts;
  /** Retries / attempts over the window (0 without attempts). */
  readonly retryRatio: number;
}

/** What the threshold hook receives. */
export interface RetryRatioCrossing {
  /** `above`: the ratio rose to or past the threshold; `below`: it fell back under it. */
  readonly direction: 'above' | 'below';
  readonly retryRatio: number;
  readonly threshold: number;
  readonly snapshot: RetryMetricsSnapshot;
}

/** Options of {@link RetryMetrics}. */
export interface RetryMetricsOptions {
  /** The sliding window, in milliseconds. @defaultValue 60000 */
  readonly window?: number;
  /** The clock. @defaultValue RxJS `asyncScheduler` */
  readonly scheduler?: {
    /** The current time in milliseconds. */
    now(): number;
  };
  /** An OpenTelemetry meter (`metrics.getMeter('name')`) or any {@link MeterLike}. @defaultValue none */
  readonly meter?: MeterLike;
  /** Attributes added to every measurement, e.g. `{ 'server.address': 'api.example.com' }`. @defaultValue {} */
  readonly attributes?: MetricAttributes;
  /** The instrument name prefix. @defaultValue 'redialer.retry' */
  readonly prefix?: string;
  /** The retry ratio at which `onRatioCrossed` fires, in (0, 1]. @defaultValue 0.1 */
  readonly ratioThreshold?: number;
  /** Attempts the window must hold before the ratio is judged (a lone retry is not a trend). @defaultValue 10 */
  readonly minAttempts?: number;
  /** Called when the windowed ratio crosses `ratioThreshold`, either way; checked at each event. */
  readonly onRatioCrossed?: (crossing: RetryRatioCrossing) => void;
}

type Kind = 'attempts' | 'retries' | 'successes' | 'giveUps' | 'permanentFailures' | 'throttledRetries';
const KINDS: readonly Kind[] = ['attempts', 'retries', 'successes', 'giveUps', 'permanentFailures', 'throttledRetries'];

const INSTRUMENTS: Readonly<Record<Kind, readonly [string, string]>> = {
  attempts: ['attempts', 'Attempts started, first attempts and retries'],
  retries: ['retries', 'Attempts that were retries'],
  successes: ['successes', 'Successful attempts'],
  giveUps: ['give_ups', 'Retry loops that gave up on a transient failure'],
  permanentFailures: ['permanent_failures', 'Failures classified as permanent and not retried'],
  throttledRetries: ['throttled', 'Retries refused by a retry budget'],
};

/**
 * Collects a retry loop's events into counters. One instance may serve many calls (and managers).
 * Holds no timer; {@link RetryMetrics.close} detaches it from the meter's gauge.
 *
 * @example
 * ```ts
 * import { metrics as otel } from '@opentelemetry/api';
 * const metrics = new RetryMetrics({
 *   meter: otel.getMeter('checkout'),
 *   onRatioCrossed: (c) => log.warn(`retry ratio ${c.direction} ${c.threshold}`),
 * });
 * await retry(op, { metrics });
 * ```
 */
export class RetryMetrics implements RetryEventSink {
  /** The snapshot after each event; replays the latest to new subscribers; completes on close(). */
  readonly snapshot$: Observable<RetryMetricsSnapshot>;

  readonly #clock: { now(): number };
  readonly #window: SlidingWindow<Kind>;
  readonly #totals = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  readonly #subject: BehaviorSubject<RetryMetricsSnapshot>;
  readonly #counters: Partial<Record<Kind, CounterLike>> = {};
  readonly #attributes: MetricAttributes;
  readonly #threshold: number;
  readonly #minAttempts: number;
  readonly #onCrossed: ((crossing: RetryRatioCrossing) => void) | undefined;
  #above = false;
  #gauge: { instrument: ObservableGaugeLike; callback: (result: ObservableResultLike) => void } | undefined;

  constructor(options: RetryMetricsOptions = {}) {
    const raw = checkOptionsObject('RetryMetrics options', options);
    const window = optionalNumber('window', raw['window'], 60_000, { min: 1 });
    this.#clock = optionalClock('scheduler', raw['scheduler'], asyncScheduler);
    this.#window = new SlidingWindow<Kind>(window, () => this.#clock.now());
    this.#threshold = optionalNumber('ratioThreshold', raw['ratioThreshold'], 0.1, { min: Number.MIN_VALUE, max: 1 });
    this.#minAttempts = optionalNumber('minAttempts', raw['minAttempts'], 10, { min: 1, integer: true });
    this.#onCrossed = optionalFunction('onRatioCrossed', raw['onRatioCrossed']);
    this.#attributes = optionalObject<MetricAttributes>('attributes', raw['attributes'] ?? undefined, {});
    const prefix = checkText('prefix', raw['prefix'] ?? 'redialer.retry');
    const meter = raw['meter'];
    if (meter !== undefined) this.#attach(meter, prefix);
    this.#subject = new BehaviorSubject(this.#snapshot());
    this.snapshot$ = this.#subject.asObservable();
  }

  /** The latest snapshot (computed now, so the window reflects the current time). */
  get snapshot(): RetryMetricsSnapshot {
    return this.#snapshot();
  }

  /** Records one event (the {@link RetryEventSink} port). */
  record(event: RetryEvent): void {
    switch (event.type) {
      case 'attempt':
        this.#count('attempts');
        if (event.attempt > 1) this.#count('retries');
        break;
      case 'success':
        this.#count('successes');
        break;
      case 'give-up':
        this.#count('giveUps', { reason: event.reason });
        if (event.reason === 'throttled') this.#count('throttledRetries');
        break;
      case 'permanent':
        this.#count('permanentFailures');
        break;
      case 'retry':
        return;
    }
    const snapshot = this.#snapshot();
    if (!this.#subject.closed) this.#subject.next(snapshot);
    this.#checkThreshold(snapshot);
  }

  /** Detaches the gauge callback from the meter and completes `snapshot$`. Idempotent. */
  close(): void {
    if (this.#gauge !== undefined) {
      this.#gauge.instrument.removeCallback(this.#gauge.callback);
      this.#gauge = undefined;
    }
    this.#subject.complete();
  }

  #attach(meter: unknown, prefix: string): void {
    const m = meter as Partial<MeterLike> | null;
    if (
      typeof m !== 'object' ||
      m === null ||
      typeof m.createCounter !== 'function' ||
      typeof m.createObservableGauge !== 'function'
    ) {
      throw new TypeError(
        `redialer: option "meter" must have createCounter() and createObservableGauge(), got ${describeValue(meter)}`,
      );
    }
    for (const kind of KINDS) {
      const [name, description] = INSTRUMENTS[kind];
      this.#counters[kind] = m.createCounter(`${prefix}.${name}`, { description, unit: '{event}' });
    }
    const instrument = m.createObservableGauge(`${prefix}.ratio`, {
      description: 'Retries / attempts over the sliding window',
      unit: '1',
    });
    const callback = (result: ObservableResultLike): void => {
      result.observe(this.#snapshot().retryRatio, this.#attributes);
    };
    instrument.addCallback(callback);
    this.#gauge = { instrument, callback };
  }

  #count(kind: Kind, extra?: MetricAttributes): void {
    this.#totals.set(kind, (this.#totals.get(kind) ?? 0) + 1);
    this.#window.add(kind);
    const counter = this.#counters[kind];
    if (counter !== undefined) {
      try {
        counter.add(1, extra === undefined ? this.#attributes : { ...this.#attributes, ...extra });
      } catch (error) {
        reportUnhandledError(error, undefined);
      }
    }
  }

  #snapshot(): RetryMetricsSnapshot {
    const total = Object.fromEntries(KINDS.map((k) => [k, this.#totals.get(k) ?? 0])) as unknown as RetryCounts;
    const window = Object.fromEntries(KINDS.map((k) => [k, this.#window.count(k)])) as unknown as RetryCounts;
    const retryRatio = window.attempts === 0 ? 0 : window.retries / window.attempts;
    return Object.freeze({
      at: this.#clock.now(),
      total: Object.freeze(total),
      window: Object.freeze(window),
      retryRatio,
    });
  }

  #checkThreshold(snapshot: RetryMetricsSnapshot): void {
    const judged = snapshot.window.attempts >= this.#minAttempts;
    const above = judged ? snapshot.retryRatio >= this.#threshold : this.#above && snapshot.window.attempts > 0;
    if (above === this.#above) return;
    this.#above = above;
    if (this.#onCrossed === undefined) return;
    try {
      this.#onCrossed({
        direction: above ? 'above' : 'below',
        retryRatio: snapshot.retryRatio,
        threshold: this.#threshold,
        snapshot,
      });
    } catch (error) {
      reportUnhandledError(error, undefined);
    }
  }
}
