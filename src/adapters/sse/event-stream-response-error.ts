import { brand, hasBrand } from '../../internal/brand.js';

/**
 * The server answered an event-stream request with something other than a stream: a status other
 * than 200, or a 200 whose content type is not `text/event-stream`. Its message names the request
 * and the answer (`GET https://api.example.test/events answered 404`).
 */
export class EventStreamResponseError extends Error {
  override readonly name = 'EventStreamResponseError';

  constructor(
    /** The request's method. */
    readonly method: string,
    /** The request's URL. */
    readonly url: string,
    /** The response's status. */
    readonly status: number,
    /** The response's content type, if it had one. */
    readonly contentType: string | undefined,
    /** What the client does about it: retry (with the backoff), or stop for good. */
    readonly retried: boolean,
  ) {
    const answer =
      status === 200
        ? `answered 200 with content type ${contentType === undefined ? '(none)' : JSON.stringify(contentType)}, not text/event-stream`
        : `answered ${String(status)}`;
    super(`${method} ${url} ${answer}${retried ? '' : '; not retried'}`);
    brand(this, 'EventStreamResponseError');
  }
}

/** Whether `value` is an {@link EventStreamResponseError} (from any copy of redialer). */
export function isEventStreamResponseError(value: unknown): value is EventStreamResponseError {
  return hasBrand(value, 'EventStreamResponseError');
}
