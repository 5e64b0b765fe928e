import { brand, hasBrand } from './brand.js';

/**
 * Marks `error` as the graceful end of an established connection by the server — HTTP/2's GOAWAY
 * with NO_ERROR (a restart, a connection-age rotation), a WebSocket "going away" — and returns it. A
 * connector that ends a READY connection with such an error tells the manager that the server did
 * not fail: the connection counts as established for the backoff even if it lasted less than
 * `minUptime`, so the reconnect starts from the initial backoff. The floor on attempt starts and the
 * one-initial-backoff spacing after a reset still apply, so a server that ends every connection
 * gracefully at once cannot make its clients dial in a tight loop.
 *
 * @example
 * ```ts
 * session.on('goaway', (code) => {
 *   const error = new Error(`GOAWAY ${String(code)}`);
 *   subscriber.error(code === 0 ? markGracefulEnd(error) : error);
 * });
 * ```
 */
export function markGracefulEnd<E extends Error>(error: E): E {
  if (!isGracefulEnd(error)) brand(error, 'GracefulEnd');
  return error;
}

/** Whether `value` was marked with {@link markGracefulEnd} (by any copy of redialer). */
export function isGracefulEnd(value: unknown): boolean {
  return hasBrand(value, 'GracefulEnd');
}
