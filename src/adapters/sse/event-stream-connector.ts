/**
 * One attempt of a {@link ReconnectingEventSource}: a `fetch` of the event stream, as a core
 * connector. It sends `Accept: text/event-stream` and the cursor as `Last-Event-ID`; the connection
 * is established (READY) when a 200 with `text/event-stream` arrives, and its body is parsed as it
 * comes. What the answer means for the schedule is said here once, in the core's words:
 * - 204, a wrong content type, and 4xx other than 408 and 429 stop for good (`permanent`), as the
 *   spec says (and 3xx, which `fetch` has already followed), except an answer that refuses to resume
 *   from the cursor sent (409 or 410 by default): a failed attempt whose error is the owner's
 *   `CannotResumeError`, after which the owner sends no cursor;
 * - 408, 429 and 5xx are failed attempts (the spec would stop on a 5xx; a restarting server answers
 *   503 for a while), with a `Retry-After` on 429/503 as a server hint (`retryAfter`): a floor;
 * - the server's `retry:` field is a floor too, on every later failure: never a replacement for the
 *   backoff, and bounded by the manager's `maxRetryAfter`;
 * - the body ending is the connection's end; `idleTimeout` without a byte ends it with an
 *   {@link IdleTimeoutError}; a network error is a failed attempt.
 * @module
 */
import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Connector } from '../../core/connector.js';
import { ConnectionClosedError } from '../../errors/connection-closed-error.js';
import { isPermanentError, permanent } from '../../errors/permanent-error.js';
import { retryAfter, retryAfterDelayOf } from '../../errors/retry-after-error.js';
import { scheduleTimer } from '../../internal/schedule-timer.js';
import { parseRetryAfter } from '../../backoff/retry-after-value.js';
import { EventStreamParser, type ParsedEvent } from './event-stream-parser.js';
import { EventStreamResponseError } from './event-stream-response-error.js';
import { IdleTimeoutError } from './idle-timeout-error.js';

/** An open event stream: the response whose body is being read. */
export interface EventStreamConnection {
  readonly response: Response;
  /** The URL the stream came from, after redirects. */
  readonly url: string;
}

/** Headers to send, or a function that gives them before each attempt (a fresh token). */
export type EventStreamHeaders =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | PromiseLike<Readonly<Record<string, string>>>);

/** How to ask for the stream; fixed for the source's life. */
export interface EventStreamRequest {
  readonly url: string;
  readonly method: string;
  readonly body: string | undefined;
  readonly headers: EventStreamHeaders | undefined;
  readonly withCredentials: boolean;
  readonly fetch: typeof fetch;
  /** ms without a byte that end the attempt; Infinity for never. */
  readonly idleTimeout: number;
  readonly scheduler: SchedulerLike;
}

/** What the stream tells its owner, and the cursor the owner keeps across attempts. */
export interface EventStreamSink {
  /** An attempt starts: the cursor to send as `Last-Event-ID` (`""`: none). */
  open(): string;
  /** The cursor moved without an event (a block without data ended with an `id`). */
  cursor(id: string): void;
  event(event: ParsedEvent): void;
  /** Whether an answer that is not a stream refuses to resume (asked only when a cursor was sent). */
  cannotResume(response: Response): boolean;
  /** The server refused to resume from `from`: the error to end the attempt with. */
  refuse(from: string, answer: EventStreamResponseError): unknown;
}

const RETRIED = new Set([408, 429]);

/** Whether a response's content type is `text/event-stream` (parameters allowed, any case). */
function isEventStream(contentType: string | null): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** The connector of an event stream; see the module notes. */
export function eventStreamConnector(
  request: EventStreamRequest,
  sink: EventStreamSink,
): Connector<EventStreamConnection> {
  /** The server's `retry:`, ms: a floor under every later wait. Kept across attempts, as the spec keeps it. */
  let serverRetry: number | undefined;
  /** A failure with the server's floor on it (a Retry-After the failure carries already wins if longer). */
  const withFloor = (error: unknown): unknown => {
    if (serverRetry === undefined || (retryAfterDelayOf(error) ?? 0) >= serverRetry) return error;
    return retryAfter(error, serverRetry);
  };

  return () =>
    new Observable<EventStreamConnection>((subscriber) => {
      const controller = new AbortController();
      /** Whether the attempt is over (cut, failed, torn down); read after each await. */
      const over = (): boolean => subscriber.closed;
      let idle: Subscription | undefined;
      const fail = (error: unknown): void => {
        if (!subscriber.closed) subscriber.error(error);
      };
      const armIdle = (): void => {
        idle?.unsubscribe();
        if (request.idleTimeout === Infinity) return;
        idle = scheduleTimer(request.scheduler, request.idleTimeout, () => {
          fail(withFloor(new IdleTimeoutError(request.idleTimeout)));
        });
      };

      const run = async (): Promise<void> => {
        const given = typeof request.headers === 'function' ? await request.headers() : request.headers;
        if (over()) return;
        const headers = new Headers(given);
        headers.set('accept', 'text/event-stream');
        headers.set('cache-control', 'no-store');
        const cursor = sink.open();
        if (cursor !== '') headers.set('last-event-id', cursor);
        const response = await request.fetch(request.url, {
          method: request.method,
          headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          credentials: request.withCredentials ? 'include' : 'same-origin',
          cache: 'no-store',
          signal: controller.signal,
        });
        const contentType = response.headers.get('content-type');
        if (response.status !== 200 || !isEventStream(contentType)) {
          await response.body?.cancel().catch(() => undefined);
          let refusal: boolean;
          try {
            refusal = cursor !== '' && sink.cannotResume(response);
          } catch (error) {
            fail(permanent(error));
            return;
          }
          const retried = refusal || RETRIED.has(response.status) || (response.status >= 500 && response.status < 600);
          const error = new EventStreamResponseError(
            request.method,
            request.url,
            response.status,
            contentType ?? undefined,
            retried,
          );
          if (!retried) {
            fail(permanent(error));
            return;
          }
          const failure = refusal ? sink.refuse(cursor, error) : error;
          const asked = response.headers.get('retry-after');
          const delay = asked === null ? undefined : parseRetryAfter(asked);
          fail(withFloor(delay === undefined ? failure : retryAfter(failure, delay)));
          return;
        }
        if (over()) return;
        subscriber.next({ response, url: response.url === '' ? request.url : response.url });
        armIdle();
        const parser = new EventStreamParser(
          {
            cursor: (id) => {
              sink.cursor(id);
            },
            event: (event) => {
              sink.event(event);
            },
            retry: (ms) => {
              serverRetry = ms;
            },
          },
          cursor,
        );
        const body = response.body;
        if (body !== null) {
          const reader = body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const chunk = await reader.read();
            if (chunk.done || over()) break;
            armIdle();
            parser.feed(chunk.value);
          }
        }
        parser.end();
        fail(withFloor(new ConnectionClosedError('the server ended the event stream')));
      };

      run().catch((error: unknown) => {
        fail(isPermanentError(error) ? error : withFloor(error));
      });
      return () => {
        idle?.unsubscribe();
        controller.abort();
      };
    });
}
