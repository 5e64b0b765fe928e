import { brand, hasBrand } from '../errors/brand.js';

/** A grpc-js channel could not connect: it reported TRANSIENT_FAILURE (or shut down) before READY. */
export class ConnectionFailedError extends Error {
  override readonly name = 'ConnectionFailedError';

  constructor(
    /** The channel's target. */
    readonly target: string,
    /** The state the channel reported instead of READY. */
    readonly state: string,
  ) {
    super(`could not connect to ${target} (${state})`);
    brand(this, 'ConnectionFailedError');
  }
}

/** Whether `value` is a {@link ConnectionFailedError} (from any copy of redialer). */
export function isConnectionFailedError(value: unknown): value is ConnectionFailedError {
  return hasBrand(value, 'ConnectionFailedError');
}
