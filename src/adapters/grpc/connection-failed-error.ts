import { brand, hasBrand } from '../../internal/brand.js';

/**
 * A grpc-js channel could not connect: it reported TRANSIENT_FAILURE (or shut down) before READY.
 * The `cause`, when known, is what the connection's socket reported (ECONNREFUSED, ETIMEDOUT,
 * ECONNRESET…) or the server's GOAWAY; the message says it too.
 */
export class ConnectionFailedError extends Error {
  override readonly name = 'ConnectionFailedError';

  constructor(
    /** The channel's target. */
    readonly target: string,
    /** The state the channel reported instead of READY. */
    readonly state: string,
    cause?: Error,
    /** Whether a TCP connection was opened (then it closed before the server's SETTINGS frame). */
    opened = false,
  ) {
    const why =
      cause !== undefined
        ? `: ${cause.message}`
        : opened
          ? ": the connection closed before the server's SETTINGS frame"
          : '';
    super(`could not connect to ${target}${why}`, cause === undefined ? undefined : { cause });
    brand(this, 'ConnectionFailedError');
  }
}

/** Whether `value` is a {@link ConnectionFailedError} (from any copy of redialer). */
export function isConnectionFailedError(value: unknown): value is ConnectionFailedError {
  return hasBrand(value, 'ConnectionFailedError');
}
