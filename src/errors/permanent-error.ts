import { brand, hasBrand } from '../internal/brand.js';
import { describeSafely, readSafely } from '../internal/read-safely.js';

/**
 * A failure that retrying cannot fix (for example: authentication refused). A connector that fails
 * with a PermanentError stops the manager, which moves to SHUTDOWN and reports the error.
 *
 * @example
 * ```ts
 * if (response.status === 401) throw new PermanentError('credentials rejected', { cause: response });
 * ```
 */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    brand(this, 'PermanentError');
  }
}

/** Whether `value` is a {@link PermanentError} (from any copy of redialer). */
export function isPermanentError(value: unknown): value is PermanentError {
  return hasBrand(value, 'PermanentError');
}

/** Wraps `cause` in a {@link PermanentError} (returns it unchanged if it already is one). */
export function permanent(cause: unknown): PermanentError {
  if (isPermanentError(cause)) return cause;
  const message = readSafely(cause, 'message');
  return new PermanentError(typeof message === 'string' ? message : describeSafely(cause), { cause });
}
