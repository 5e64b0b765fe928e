/**
 * What the peers' properties say about a connection, read from the connection manager's snapshot:
 * `readyState`, `retryCount` and `shouldReconnect`. Pure: the adapter passes in what it alone knows
 * (the open socket's own readyState, whether the socket reconnect() let go of is still closing, the
 * clock).
 * @module
 */
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import { ReadyState, type WebSocketLike } from './websocket-types.js';

/**
 * The connection manager's snapshot, as `state$` and `snapshot` give it: IDLE with `paused: true`
 * while attempts are on hold because the browser is offline (the next attempt starts on `online`).
 * A server-directed wait is an ordinary TRANSIENT_FAILURE whose `lastError` is a RetryAfterError and
 * whose `nextAttemptAt` honours the server's delay.
 */
export type WebSocketSnapshot = ConnectionSnapshot<WebSocketLike>;

/** Whether attempts are on hold (IDLE with `paused: true`): the client still means to connect. */
export function isPaused(snapshot: WebSocketSnapshot): boolean {
  return snapshot.state === 'IDLE' && snapshot.paused === true;
}

/**
 * CONNECTING while connecting, waiting to retry or paused; OPEN, or the open socket's own state,
 * while connected; CLOSING while the socket that reconnect() let go of is still closing and the new
 * one is not open; CLOSED while idle (not paused) and after close() or giving up.
 */
export function readyStateOf(
  snapshot: WebSocketSnapshot,
  socketState: number | undefined,
  abandonedClosing: boolean,
): number {
  switch (snapshot.state) {
    case 'READY':
      return socketState ?? ReadyState.OPEN;
    case 'SHUTDOWN':
      return ReadyState.CLOSED;
    case 'IDLE':
      if (!isPaused(snapshot) && !abandonedClosing) return ReadyState.CLOSED;
  }
  return abandonedClosing ? ReadyState.CLOSING : ReadyState.CONNECTING;
}

/**
 * Retries in the current backoff cycle, counted as the peers count them: the attempt number minus
 * one while connecting, and while open until the connection has stayed up `minUptime` (then 0);
 * while waiting to retry, the number of the retry to come; 0 while idle.
 */
export function retryCountOf(snapshot: WebSocketSnapshot, now: number, minUptime: number): number {
  if (snapshot.state === 'TRANSIENT_FAILURE') return snapshot.attempt;
  if (snapshot.state === 'IDLE') return 0;
  // A connection that has stayed up minUptime has reset the count (it will reset the backoff).
  if (snapshot.state === 'READY' && now - snapshot.since >= minUptime) return 0;
  return Math.max(0, snapshot.attempt - 1);
}

/** Whether the client connects again by itself: not after close() or giving up, nor while idle unless paused. */
export function shouldReconnectOf(snapshot: WebSocketSnapshot): boolean {
  return snapshot.state !== 'SHUTDOWN' && (snapshot.state !== 'IDLE' || isPaused(snapshot));
}
