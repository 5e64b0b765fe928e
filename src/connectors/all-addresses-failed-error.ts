import { brand, hasBrand } from '../internal/brand.js';
import { ConnectorBackoffError } from '../errors/connector-backoff-error.js';
import { describeError } from '../internal/describe-error.js';
import { formatIn } from '../internal/format-duration.js';

/** What one address did in a failed pass of {@link happyEyeballs}. */
export interface AddressFailure {
  /** The address's label (its position when none was given). */
  readonly label: string;
  /** What ended its last attempt; undefined when it was not tried in this pass (still backing off). */
  readonly error: unknown;
  /** When it may be tried again, on the scheduler clock (Infinity after a permanent failure). */
  readonly nextAttemptAt: number;
}

/**
 * Every address of a {@link happyEyeballs} pass failed or is backing off. As a
 * {@link ConnectorBackoffError}, it makes the manager wait exactly until the soonest address is due
 * (`delay`), so that each address follows its own backoff.
 */
export class AllAddressesFailedError extends ConnectorBackoffError {
  override readonly name = 'AllAddressesFailedError';

  constructor(
    /** Each address, in the configured order. */
    readonly failures: readonly AddressFailure[],
    delay: number,
  ) {
    const parts = failures.map((f) => `${f.label}: ${f.error === undefined ? 'backing off' : describeError(f.error)}`);
    super(`all ${String(failures.length)} addresses failed (${parts.join('; ')}); next ${formatIn(delay)}`, delay);
    brand(this, 'AllAddressesFailedError');
  }
}

/** Whether `value` is an {@link AllAddressesFailedError} (from any copy of redialer). */
export function isAllAddressesFailedError(value: unknown): value is AllAddressesFailedError {
  return hasBrand(value, 'AllAddressesFailedError');
}
