/**
 * The few OpenTelemetry metrics calls the retry toolkit makes, as structural types: pass
 * `metrics.getMeter('my-service')` from `@opentelemetry/api` and it fits, while redialer itself never
 * imports that package (it stays an optional peer, and the code runs in browsers without it).
 * @module
 */

/** Attribute values, as OpenTelemetry accepts them. */
export type MetricAttributes = Readonly<Record<string, string | number | boolean>>;

/** An OpenTelemetry `Counter`. */
export interface CounterLike {
  /** Adds `value` (≥ 0) to the counter for these attributes. */
  add(value: number, attributes?: MetricAttributes): void;
}

/** What an OpenTelemetry observable-instrument callback receives. */
export interface ObservableResultLike {
  /** Reports the gauge's current `value` for these attributes. */
  observe(value: number, attributes?: MetricAttributes): void;
}

/** An OpenTelemetry `ObservableGauge`. */
export interface ObservableGaugeLike {
  /** Registers `callback`, called at each collection to observe the current value. */
  addCallback(callback: (result: ObservableResultLike) => void): void;
  /** Unregisters a callback given to `addCallback`. */
  removeCallback(callback: (result: ObservableResultLike) => void): void;
}

/** Instrument options, as OpenTelemetry's `MetricOptions`. */
export interface InstrumentOptionsLike {
  readonly description?: string;
  readonly unit?: string;
}

/** An OpenTelemetry `Meter` (from `metrics.getMeter(name)`), or anything with the same two methods. */
export interface MeterLike {
  /** Creates a monotonic counter. */
  createCounter(name: string, options?: InstrumentOptionsLike): CounterLike;
  /** Creates a gauge whose value is observed through callbacks at each collection. */
  createObservableGauge(name: string, options?: InstrumentOptionsLike): ObservableGaugeLike;
}
