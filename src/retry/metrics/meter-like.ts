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
  add(value: number, attributes?: MetricAttributes): void;
}

/** What an OpenTelemetry observable-instrument callback receives. */
export interface ObservableResultLike {
  observe(value: number, attributes?: MetricAttributes): void;
}

/** An OpenTelemetry `ObservableGauge`. */
export interface ObservableGaugeLike {
  addCallback(callback: (result: ObservableResultLike) => void): void;
  removeCallback(callback: (result: ObservableResultLike) => void): void;
}

/** Instrument options, as OpenTelemetry's `MetricOptions`. */
export interface InstrumentOptionsLike {
  readonly description?: string;
  readonly unit?: string;
}

/** An OpenTelemetry `Meter` (from `metrics.getMeter(name)`), or anything with the same two methods. */
export interface MeterLike {
  createCounter(name: string, options?: InstrumentOptionsLike): CounterLike;
  createObservableGauge(name: string, options?: InstrumentOptionsLike): ObservableGaugeLike;
}
