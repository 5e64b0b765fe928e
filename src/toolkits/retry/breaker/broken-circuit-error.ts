import { brand, hasBrand } from '../../../internal/brand.js';

/**
 * A call refused by an open circuit breaker (or by a half-open one whose single probe is in flight):
 * the operation was not run. Transient: it is worth trying elsewhere now, or here after `until`.
 */
export class BrokenCircuitError extends Error {
  override readonly name = 'BrokenCircuitError';

  constructor(
    /** The breaker's name. */
    readonly breaker: string,
    /** When the breaker lets a probe through, on its scheduler's clock (now, for a busy half-open). */
    readonly until: number,
    /** What opened the breaker. */
    options?: ErrorOptions,
  ) {
    super(`circuit breaker ${JSON.stringify(breaker)} is open until ${String(until)}; the call was not run`, options);
    brand(this, 'BrokenCircuitError');
  }
}

/** Whether `value` is a {@link BrokenCircuitError} (from any copy of redialer). */
export function isBrokenCircuitError(value: unknown): value is BrokenCircuitError {
  return hasBrand(value, 'BrokenCircuitError');
}
