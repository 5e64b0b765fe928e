import { brand, hasBrand } from '../../internal/brand.js';
import { formatDuration } from '../../internal/format-duration.js';

/**
 * The heartbeat found the connection dead: nothing arrived (no message, no pong) for `interval +
 * timeout` ms while the socket still looked open — a half-open connection or a stalled path.
 */
export class HeartbeatTimeoutError extends Error {
  override readonly name = 'HeartbeatTimeoutError';

  constructor(
    /** How long nothing had arrived, in milliseconds. */
    readonly silence: number,
  ) {
    super(`the WebSocket sent nothing for ${formatDuration(silence)} (heartbeat timeout): closed with code 4000`);
    brand(this, 'HeartbeatTimeoutError');
  }
}

/** Whether `value` is a {@link HeartbeatTimeoutError} (from any copy of redialer). */
export function isHeartbeatTimeoutError(value: unknown): value is HeartbeatTimeoutError {
  return hasBrand(value, 'HeartbeatTimeoutError');
}
