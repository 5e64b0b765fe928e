import { brand, hasBrand } from '../errors/brand.js';
import type { CloseEventLike } from './websocket-types.js';

/** A WebSocket (or an attempt to open one) closed; carries the close event's code, reason and wasClean. */
export class WebSocketCloseError extends Error {
  override readonly name = 'WebSocketCloseError';
  /** The close code. */
  readonly code: number;
  /** The close reason, or ''. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;

  constructor(event: CloseEventLike, opened: boolean) {
    const reason = event.reason === '' ? '' : ` (${event.reason})`;
    super(`the WebSocket closed with code ${String(event.code)}${reason} ${opened ? 'after it opened' : 'before it opened'}`);
    this.code = event.code;
    this.reason = event.reason;
    this.wasClean = event.wasClean;
    brand(this, 'WebSocketCloseError');
  }
}

/** Whether `value` is a {@link WebSocketCloseError} (from any copy of redialer). */
export function isWebSocketCloseError(value: unknown): value is WebSocketCloseError {
  return hasBrand(value, 'WebSocketCloseError');
}
