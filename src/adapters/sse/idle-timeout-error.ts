import { brand, hasBrand } from '../../internal/brand.js';
import { formatDuration } from '../../internal/format-duration.js';

/** Nothing arrived on an open event stream (no event, no comment) for `idleTimeout` ms: the attempt was ended. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';

  constructor(
    /** How long nothing had arrived, ms. */
    readonly silence: number,
  ) {
    super(`the event stream sent nothing for ${formatDuration(silence)} (idleTimeout): reconnecting`);
    brand(this, 'IdleTimeoutError');
  }
}

/** Whether `value` is an {@link IdleTimeoutError} (from any copy of redialer). */
export function isIdleTimeoutError(value: unknown): value is IdleTimeoutError {
  return hasBrand(value, 'IdleTimeoutError');
}
