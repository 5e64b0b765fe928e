import { brand, hasBrand } from '../internal/brand.js';

/** A connection (or an attempt) ended without an error of its own, for example a clean close. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';

  constructor(message = 'the connection was closed', options?: ErrorOptions) {
    super(message, options);
    brand(this, 'ConnectionClosedError');
  }
}

/** Whether `value` is a {@link ConnectionClosedError} (from any copy of redialer). */
export function isConnectionClosedError(value: unknown): value is ConnectionClosedError {
  return hasBrand(value, 'ConnectionClosedError');
}
