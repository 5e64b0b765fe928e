import { brand, hasBrand } from '../../../internal/brand.js';
import { formatDuration } from '../../../internal/format-duration.js';

/** How long an open breaker has left at `now`: `open for another 4 s`, or `open until reset()` when no timer ends it. */
export function openFor(until: number, now: number): string {
  return until === Infinity ? 'open until reset()' : `open for another ${formatDuration(until - now)}`;
}

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
    /**
     * What opened the breaker (`cause`), and `now`: the breaker's clock when it refused, which lets the
     * message say how long the break has left (`is open for another 4 s`) rather than when it ends.
     */
    options?: ErrorOptions & { readonly now?: number },
  ) {
    const now = options?.now;
    // Without a clock reading: `until` as an ISO date (a number beyond the range of dates as it is).
    const state =
      until === Infinity
        ? 'open until reset()'
        : now !== undefined
          ? until > now
            ? openFor(until, now)
            : 'half-open with its probe in flight'
          : `open until ${Math.abs(until) <= 8.64e15 ? new Date(until).toISOString() : String(until)}`;
    super(`circuit breaker ${JSON.stringify(breaker)} is ${state}; the call was not run`, options);
    brand(this, 'BrokenCircuitError');
  }
}

/** Whether `value` is a {@link BrokenCircuitError} (from any copy of redialer). */
export function isBrokenCircuitError(value: unknown): value is BrokenCircuitError {
  return hasBrand(value, 'BrokenCircuitError');
}
