import { MAX_DELAY_MS } from '../internal/max-delay.js';
import { checkNumber } from '../internal/validate.js';
import { brand, hasBrand } from '../internal/brand.js';

/**
 * A failed attempt from a connector that keeps its own backoff — one per address, as
 * `happyEyeballs()` does (gRFC A61: each address backs off on its own, not one backoff for the list).
 * The manager then starts its next attempt exactly `delay` ms from now, when the connector says one of
 * its addresses is worth trying again, instead of after its own backoff. `resetBackoff()` still starts
 * an attempt at once.
 */
export class ConnectorBackoffError extends Error {
  override readonly name: string = 'ConnectorBackoffError';
  /** When the connector will have something to try again, in milliseconds from the failure. */
  readonly delay: number;

  constructor(message: string, delay: number, options?: ErrorOptions) {
    super(message, options);
    this.delay = Math.min(MAX_DELAY_MS, checkNumber('delay', delay, { min: 0, allowInfinity: true }));
    brand(this, 'ConnectorBackoffError');
  }
}

/** Whether `value` is a {@link ConnectorBackoffError} (from any copy of redialer). */
export function isConnectorBackoffError(value: unknown): value is ConnectorBackoffError {
  return hasBrand(value, 'ConnectorBackoffError');
}
