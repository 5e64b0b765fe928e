import { brand, hasBrand } from '../../../internal/brand.js';

/** The part of a fetch `Response` (or a Node `IncomingMessage`) that {@link HttpResponseError} keeps. */
export interface ResponseLike {
  /** The HTTP status (fetch). */
  readonly status?: number;
  /** The HTTP status (Node). */
  readonly statusCode?: number;
  /** `Headers`, or Node's plain header object. */
  readonly headers: unknown;
  /** The URL that answered (fetch's `Response.url`); an empty string counts as unknown. */
  readonly url?: string | undefined;
}

/**
 * A response whose status is an error, thrown so that the retry loop can classify it: the classifier
 * reads `status`, and `Retry-After` is read from `headers`. fetch does not throw on a 503; throw this.
 * Its message names the request when it is known (`GET https://api.example.test/items answered 400`:
 * the method as given, the URL as given or else the response's own), else the status (`HTTP 400`).
 *
 * @example
 * ```ts
 * const res = await fetch(url, { method: 'POST', body, signal });
 * if (!res.ok) throw new HttpResponseError(res, { method: 'POST' });
 * ```
 */
export class HttpResponseError extends Error {
  override readonly name = 'HttpResponseError';
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, as given. */
  readonly headers: unknown;
  /** The request's method, if given. */
  readonly method: string | undefined;
  /** The request's URL: as given, else the response's own (fetch's `Response.url`); undefined when unknown. */
  readonly url: string | undefined;

  constructor(
    /** The response; kept so that its body can still be read. */
    readonly response: ResponseLike,
    /**
     * The message (a string, as before), or what the request was: its `method` and `url` name it in
     * the message (`POST https://api.example.test/send answered 503`); `message` replaces that message.
     */
    options?:
      | string
      | {
          /** The request's method, e.g. `GET`. */
          readonly method?: string | undefined;
          /** The request's URL; the response's own URL when not given. */
          readonly url?: string | URL | undefined;
          /** The whole message, instead of the one that names the request. */
          readonly message?: string | undefined;
        },
  ) {
    const status = response.status ?? response.statusCode ?? 0;
    const request: Exclude<typeof options, string> = typeof options === 'string' ? { message: options } : options;
    const url = String(request?.url ?? response.url ?? '') || undefined;
    const named = `${request?.method ?? ''} ${url ?? ''}`.trim();
    super(request?.message ?? (named ? `${named} answered ${String(status)}` : `HTTP ${String(status)}`));
    this.status = status;
    this.headers = response.headers;
    this.method = request?.method;
    this.url = url;
    brand(this, 'HttpResponseError');
  }
}

/** Whether `value` is an {@link HttpResponseError} (from any copy of redialer). */
export function isHttpResponseError(value: unknown): value is HttpResponseError {
  return hasBrand(value, 'HttpResponseError');
}
