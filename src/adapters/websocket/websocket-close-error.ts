import { brand, hasBrand } from '../../internal/brand.js';
import type { CloseEventLike } from './websocket-types.js';

/**
 * A WebSocket (or an attempt to open one) closed; carries the close event's code, reason and
 * wasClean, and as `cause` the socket's error when an `error` event ended it (for example
 * `connect ECONNREFUSED 127.0.0.1:8080` from `ws`).
 */
export class WebSocketCloseError extends Error {
  override readonly name = 'WebSocketCloseError';
  /** The close code. */
  readonly code: number;
  /** The close reason, or ''. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;

  constructor(event: CloseEventLike, opened: boolean, cause?: unknown) {
    const reason = event.reason === '' ? '' : ` (${event.reason})`;
    const why = describeCause(cause);
    super(
      `the WebSocket closed with code ${String(event.code)}${reason} ${opened ? 'after it opened' : 'before it opened'}${why === '' ? '' : `: ${why}`}`,
      cause === undefined ? undefined : { cause },
    );
    this.code = event.code;
    this.reason = event.reason;
    this.wasClean = event.wasClean;
    brand(this, 'WebSocketCloseError');
  }
}

/** The most specific text an error carries: its message, and its own cause's message when that says more. */
function describeCause(cause: unknown): string {
  if (cause === undefined) return '';
  if (!(cause instanceof Error)) return typeof cause === 'string' ? cause : 'the socket reported an error';
  const inner = cause.cause instanceof Error && cause.cause.message !== '' ? cause.cause.message : '';
  const outer = cause.message;
  if (outer === '') return inner === '' ? cause.name : inner;
  return inner === '' || outer.includes(inner) ? outer : `${outer} (${inner})`;
}

/** Whether `value` is a {@link WebSocketCloseError} (from any copy of redialer). */
export function isWebSocketCloseError(value: unknown): value is WebSocketCloseError {
  return hasBrand(value, 'WebSocketCloseError');
}
