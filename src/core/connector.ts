/**
 * The transport port: all the manager knows of sockets.
 * @module
 */
import type { Observable } from 'rxjs';

/** What the manager tells a connector about the attempt it asks for. */
export interface AttemptContext {
  /** The attempt number within the current backoff cycle (1 after a reset). */
  readonly attempt: number;
  /**
   * Aborted when this attempt or connection is over: the manager cut the attempt at its deadline
   * (reason: ConnectTimeoutError) or went idle or shut down (ShutdownError) — the same moment it
   * unsubscribes the connector's Observable — or the Observable itself errored (reason: its error) or
   * completed (ConnectionClosedError). For APIs that take a signal; created on first read, and a read
   * after the attempt is over returns a signal that is already aborted.
   */
  readonly signal: AbortSignal;
  /**
   * When the attempt will be cut, on the scheduler clock, as planned at its start; `resetBackoff()`
   * during the attempt may bring the cut forward, never later.
   */
  readonly timeoutAt: number;
  /**
   * Reports whether the server on this attempt's connection is serving, for a connector that asks it
   * (gRPC health checking, gRFC A17). `false`, with the reason (the `lastError`; by default a
   * `NotServingError`), holds the manager in TRANSIENT_FAILURE with `connected: true` while the
   * connection stays open; `true` brings it back to READY. Neither starts an attempt or touches the
   * backoff, and the connection's end follows the rules for a READY connection's. Reported before the
   * connection is emitted, `false` makes its establishment land in TRANSIENT_FAILURE. Repeating the
   * current report, or reporting after the attempt is over, does nothing.
   */
  reportServing(serving: boolean, reason?: unknown): void;
}

/**
 * Starts one connection attempt. Subscribing starts it; the Observable then
 * - emits the connection once the server has proved it accepted it (HTTP/2: the SETTINGS frame;
 *   WebSocket: `open`) — this is READY and may reset the backoff; later emissions are ignored;
 * - completes when the connection (or the attempt) ends cleanly, or errors when it fails — an error
 *   wrapped in {@link PermanentError} stops the manager instead of retrying;
 * - is unsubscribed when the manager cuts the attempt, goes idle or shuts down: its teardown must
 *   close the socket.
 *
 * @example A WebSocket connector:
 * ```ts
 * const connector: Connector<WebSocket> = () =>
 *   new Observable((subscriber) => {
 *     const ws = new WebSocket('wss://example.test/feed');
 *     ws.onopen = () => subscriber.next(ws);
 *     ws.onclose = (event) =>
 *       event.code === 1000 ? subscriber.complete() : subscriber.error(new Error(`closed: ${event.code}`));
 *     return () => ws.close();
 *   });
 * ```
 */
export type Connector<C> = (context: AttemptContext) => Observable<C>;
