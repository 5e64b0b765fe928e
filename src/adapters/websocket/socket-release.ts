/**
 * How the client lets go of a live socket that the manager released, and which events stand in
 * for the rest of that socket's life: close() and reconnect() dispatch the close at once, with the
 * code and reason given; an attempt cut at its deadline shows as reconnecting-websocket's TIMEOUT; a
 * socket that lost a race of several URLs goes quietly.
 * @module
 */
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import { isConnectTimeoutError } from '../../errors/connect-timeout-error.js';
import { type Release, abnormalClose } from './websocket-connector.js';
import { CloseEvent, ErrorEvent } from './websocket-events.js';

/** Why the client is letting go of its socket: set around close() and reconnect(). */
export interface Releasing {
  readonly kind: 'close' | 'reconnect';
  readonly code?: number;
  readonly reason?: string;
}

/**
 * The release of a socket (`opened`: whether it had opened). `manager` is the manager's snapshot,
 * already past the release; `target` is the client, the events' target.
 */
export function releaseOf(
  releasing: Releasing | undefined,
  opened: boolean,
  manager: ConnectionSnapshot,
  target: object,
): Release {
  if (releasing !== undefined) {
    // close() of an open socket, as partysocket 1.3: the close event, with the code and reason given,
    // is dispatched within close(), so that it is never lost to listeners detached right after, and
    // never comes after a later reconnect()'s open; the socket finishes its close handshake by
    // itself. reconnect(), as the peers: the old socket's close is dispatched now, and nothing more
    // of it (readyState shows it CLOSING until it has closed or the new socket opens). close() of a
    // socket still connecting: it fails, as the WebSocket API says (1006; Node 22's never fires close).
    const { code = 1000, reason } = releasing;
    const close = releasing.kind === 'close' && !opened ? abnormalClose() : new CloseEvent(code, reason ?? '', target);
    return { code, ...(reason === undefined ? {} : { reason }), events: [['close', close]] };
  }
  // The manager has already moved on when it lets go of an attempt (its state is set before its
  // effects run): a cut at the deadline shows as a ConnectTimeoutError.
  if (manager.state !== 'CONNECTING' && isConnectTimeoutError(manager.lastError)) {
    // reconnecting-websocket's TIMEOUT error, then a close.
    return {
      events: [
        ['error', new ErrorEvent(new Error('TIMEOUT'), target)],
        ['close', abnormalClose('timeout')],
      ],
    };
  }
  // A socket that lost a race of several URLs (another one opened first): dropped quietly.
  return { events: [] };
}
