import { brand, hasBrand } from '../internal/brand.js';

/**
 * Marks `error` as the graceful end of an established connection by the server — HTTP/2's GOAWAY
 * with NO_ERROR (a restart, a connection-age rotation), a WebSocket "going away" — and returns it. A
 * connector that ends a READY connection with such an error tells the manager that the server may
 * not have failed: if the connection lasted less than `minUptime`, the backoff resets anyway when
 * the manager holds the grace credit (earned by a connection that stayed READY for `minUptime`,
 * spent by such a reset); otherwise it counts as a failed attempt. A server that ends every
 * connection gracefully at once therefore meets the same schedule as one that refuses them.
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
