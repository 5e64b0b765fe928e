/**
 * How the end of a socket reaches the connection manager: the socket's close (and the error event
 * before it, if any) as a WebSocketCloseError, made permanent or server-directed as
 * {@link decideClose} says. The rules of what the manager does with it stay in the core.
 * @module
 */
import { permanent } from '../../errors/permanent-error.js';
import { retryAfter } from '../../errors/retry-after-error.js';
import { withoutStackTrace } from '../../internal/without-stack-trace.js';
import { type ClosePolicy, decideClose } from './close-policy.js';
import { WebSocketCloseError } from './websocket-close-error.js';
import type { CloseEventLike, ErrorEventLike } from './websocket-types.js';

/** The options {@link closeOutcome} reads. */
export interface CloseOutcomeOptions extends ClosePolicy {
  readonly serverHints: 'at-least' | 'exact';
  /** The first wait of the backoff: the least wait after a 1012/1013 without a longer hint. */
  readonly minDelay: number;
}

/** What the socket's error event says, as the `cause` of the WebSocketCloseError it led to. */
export function errorCause(event: ErrorEventLike): unknown {
  if (event.error !== undefined) return event.error;
  return typeof event.message === 'string' && event.message !== '' ? new Error(event.message) : event;
}

/**
 * The error that ends the attempt or the connection: a PermanentError for a close that stops the
 * client, a RetryAfterError for a server-directed wait, else the WebSocketCloseError itself. Built
 * without stack traces (made in the socket's close callback, their frames name only the event loop
 * and redialer's internals), which also keeps them from holding what those frames reference: a
 * snapshot's `lastError` that kept an unformatted trace kept the refused attempt's request and sockets
 * alive for the whole wait.
 */
export function closeOutcome(
  close: CloseEventLike,
  errorEvent: ErrorEventLike | undefined,
  opened: boolean,
  options: CloseOutcomeOptions,
): unknown {
  return withoutStackTrace(() => outcomeOf(close, errorEvent, opened, options));
}

function outcomeOf(
  close: CloseEventLike,
  errorEvent: ErrorEventLike | undefined,
  opened: boolean,
  options: CloseOutcomeOptions,
): unknown {
  const error = new WebSocketCloseError(close, opened, errorEvent === undefined ? undefined : errorCause(errorEvent));
  const decision = decideClose(close, options);
  if (decision.action === 'stop') return permanent(error);
  if (decision.action === 'server-backoff') {
    // The manager waits at least this long (longer if its own backoff says so) in TRANSIENT_FAILURE.
    // With serverHints 'exact' a hint is the wait itself (the manager keeps it within the backoff's bounds).
    const exact = options.serverHints === 'exact' ? decision.hintMs : undefined;
    // A 1012/1013 means "not at once": at least the first wait, or the server's longer hint. The
    // manager cuts it to maxRetryAfter and spreads it, as it does every server hint.
    return retryAfter(error, exact ?? Math.max(options.minDelay, decision.hintMs ?? 0));
  }
  return error;
}
