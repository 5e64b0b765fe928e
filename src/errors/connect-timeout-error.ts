import { brand, hasBrand } from '../internal/brand.js';
import { formatDuration } from '../internal/format-duration.js';

/** An attempt was cut because it did not establish a connection by its deadline. */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';

  constructor(
    /** The attempt number within the current backoff cycle. */
    readonly attempt: number,
    /** How long the attempt was given, in milliseconds. */
    readonly timeout: number,
  ) {
    super(`connection attempt ${String(attempt)} did not complete within ${formatDuration(timeout)}`);
    brand(this, 'ConnectTimeoutError');
  }
}

/** Whether `value` is a {@link ConnectTimeoutError} (from any copy of redialer). */
export function isConnectTimeoutError(value: unknown): value is ConnectTimeoutError {
  return hasBrand(value, 'ConnectTimeoutError');
}
