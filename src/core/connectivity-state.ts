/**
 * gRPC's connectivity states (grpc/grpc doc/connectivity-semantics-and-api.md) and the one table of
 * transitions between them that the state machine is allowed to make.
 * @module
 */

/** The five connectivity states of gRPC's connectivity semantics. */
export const ConnectivityState = Object.freeze({
  /** No connection and no attempt; waits for a request to connect. */
  IDLE: 'IDLE',
  /** An attempt is in flight. */
  CONNECTING: 'CONNECTING',
  /** The server accepted the connection (HTTP/2: its SETTINGS frame arrived; WebSocket: `open`). */
  READY: 'READY',
  /** The last attempt or connection failed; the next attempt waits for the backoff. */
  TRANSIENT_FAILURE: 'TRANSIENT_FAILURE',
  /** Terminal: shut down by the caller or by a permanent failure. */
  SHUTDOWN: 'SHUTDOWN',
} as const);

/** One of the five connectivity states. */
export type ConnectivityState = (typeof ConnectivityState)[keyof typeof ConnectivityState];

/**
 * The allowed transitions, `from -> to[]`, as in gRPC's connectivity semantics:
 * IDLE -> CONNECTING (connection requested); CONNECTING -> READY (established), TRANSIENT_FAILURE
 * (attempt failed or cut), IDLE (idle); READY -> TRANSIENT_FAILURE (connection lost), IDLE (lost
 * while not reconnecting by itself, or idle); TRANSIENT_FAILURE -> CONNECTING (the wait is over, or a
 * reset), IDLE (attempts paused); any state but SHUTDOWN -> SHUTDOWN. SHUTDOWN is terminal.
 * And the one gRFC A17 (client-side health checking) adds to them: READY -> TRANSIENT_FAILURE and back
 * to READY while the connection stays open, as the server reports it is not serving, then serving.
 */
export const TRANSITIONS: Readonly<Record<ConnectivityState, readonly ConnectivityState[]>> = Object.freeze({
  IDLE: Object.freeze(['CONNECTING', 'SHUTDOWN'] as const),
  CONNECTING: Object.freeze(['READY', 'TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'] as const),
  READY: Object.freeze(['TRANSIENT_FAILURE', 'IDLE', 'SHUTDOWN'] as const),
  TRANSIENT_FAILURE: Object.freeze(['CONNECTING', 'READY', 'IDLE', 'SHUTDOWN'] as const),
  SHUTDOWN: Object.freeze([] as const),
});

/** Whether the table allows `from -> to`. */
export function isAllowedTransition(from: ConnectivityState, to: ConnectivityState): boolean {
  return TRANSITIONS[from].includes(to);
}
