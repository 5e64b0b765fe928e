import { brand, hasBrand } from '../../internal/brand.js';
import { formatDuration } from '../../internal/format-duration.js';

/** A keepalive PING went unanswered: the connection is presumed dead and is closed. */
export class KeepaliveTimeoutError extends Error {
  override readonly name = 'KeepaliveTimeoutError';

  constructor(
    /** How long the PING waited for its acknowledgement, in milliseconds. */
    readonly timeout: number,
  ) {
    super(`the server did not answer a keepalive PING within ${formatDuration(timeout)}`);
    brand(this, 'KeepaliveTimeoutError');
  }
}

/** Whether `value` is a {@link KeepaliveTimeoutError} (from any copy of redialer). */
export function isKeepaliveTimeoutError(value: unknown): value is KeepaliveTimeoutError {
  return hasBrand(value, 'KeepaliveTimeoutError');
}
