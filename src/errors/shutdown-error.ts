import { brand, hasBrand } from '../internal/brand.js';

/** The reason an attempt's AbortSignal carries when its manager shuts down or goes idle. */
export class ShutdownError extends Error {
  override readonly name = 'ShutdownError';

  constructor(message = 'the connection manager was shut down') {
    super(message);
    brand(this, 'ShutdownError');
  }
}

/** Whether `value` is a {@link ShutdownError} (from any copy of redialer). */
export function isShutdownError(value: unknown): value is ShutdownError {
  return hasBrand(value, 'ShutdownError');
}
