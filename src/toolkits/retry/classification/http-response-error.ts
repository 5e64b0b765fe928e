import { brand, hasBrand } from '../../../internal/brand.js';

/** The part of a fetch `Response` (or a Node `IncomingMessage`) that {@link HttpResponseError} keeps. */
export interface ResponseLike {
  /** The HTTP status (fetch). */
  readonly status?: number;
  /** The HTTP status (Node). */
  readonly statusCode?: number;
  /** `Headers`, or Node's plain header object. */
  readonly headers: unknown;
}

/**
 * A response whose status is an error, thrown so that the retry loop can classify it: the classifier
 * reads `status`, and `Retry-After` is read from `headers`. fetch does not throw on a 503; throw this.
 *
 * @example
 * ```ts
 * const res = await fetch(url, { signal });
 * if (!res.ok) throw new HttpResponseError(res);
 * ```
 */
export class HttpResponseError extends Error {
  override readonly name = 'HttpResponseError';
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, as given. */
  readonly headers: unknown;

  constructor(
    /** The response; kept so that its body can still be read. */
    readonly response: ResponseLike,
    message?: string,
  ) {
    const status = response.status ?? response.statusCode ?? 0;
    super(message ?? `HTTP ${String(status)}`);
    this.status = status;
    this.headers = response.headers;
    brand(this, 'HttpResponseError');
  }
}

/** Whether `value` is an {@link HttpResponseError} (from any copy of redialer). */
export function isHttpResponseError(value: unknown): value is HttpResponseError {
  return hasBrand(value, 'HttpResponseError');
}
