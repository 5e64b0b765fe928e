import { brand, hasBrand } from '../../../internal/brand.js';
import { formatDuration } from '../../../internal/format-duration.js';

/**
 * An attempt was cut by the retry loop's own per-attempt timer. The attempt's signal is aborted with
 * this error; the failure is transient, but it may have reached the server.
 */
export class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';

  constructor(
    /** The attempt that was cut (1-based). */
    readonly attempt: number,
    /** How long it was given, in milliseconds. */
    readonly timeout: number,
  ) {
    super(`attempt ${String(attempt)} did not complete within ${formatDuration(timeout)}`);
    brand(this, 'AttemptTimeoutError');
  }
}

/** Whether `value` is an {@link AttemptTimeoutError} (from any copy of redialer). */
export function isAttemptTimeoutError(value: unknown): value is AttemptTimeoutError {
  return hasBrand(value, 'AttemptTimeoutError');
}
