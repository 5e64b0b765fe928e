import { brand, hasBrand } from '../internal/brand.js';

/** Options of {@link NotServingError}: ErrorOptions, and what the health check saw besides the status. */
export interface NotServingErrorOptions extends ErrorOptions {
  /** How the health check ended when it got no status (a stream's gRPC status and message). */
  readonly detail?: string;
}

/**
 * The server is reachable but does not serve (gRPC health checking, gRFC A17: a status other than
 * SERVING, or a health check that failed): the `lastError` of a manager held in TRANSIENT_FAILURE on
 * an open connection.
 */
export class NotServingError extends Error {
  override readonly name = 'NotServingError';
  /** The service name the health check asked about (`""`: the whole server); undefined when not known. */
  readonly service: string | undefined;
  /** The status the server reported (`NOT_SERVING`, `SERVICE_UNKNOWN`, `UNKNOWN`), or how the check ended (`UNAVAILABLE`…). */
  readonly status: string;

  constructor(service?: string, status = 'NOT_SERVING', options?: NotServingErrorOptions) {
    const name =
      service === undefined ? '' : service === '' ? ' for the whole server ("")' : ` for ${JSON.stringify(service)}`;
    super(
      options?.detail === undefined
        ? `the server reports ${status}${name}`
        : service === undefined
          ? `the service is unavailable: ${status}: ${options.detail}`
          : `the health check${name} failed: ${status}: ${options.detail}`,
      options,
    );
    this.service = service;
    this.status = status;
    brand(this, 'NotServingError');
  }
}

/** Whether `value` is a {@link NotServingError} (from any copy of redialer). */
export function isNotServingError(value: unknown): value is NotServingError {
  return hasBrand(value, 'NotServingError');
}
