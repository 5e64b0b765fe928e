/**
 * reconnecting-websocket 4.4's options, every one but `WebSocket` set, as an application that sets them
 * all writes them (partysocket 1.3 has the same ten). The drop-in tests pass them to redialer as an
 * object typed by the peer's own `Options`, and write them into the source of a consumer's app.
 */
import type { Options as RwsOptions } from 'reconnecting-websocket';

/** A value for each of reconnecting-websocket's options but `WebSocket`. */
export const EVERY_RWS_OPTION = {
  maxReconnectionDelay: 10_000,
  minReconnectionDelay: 1000,
  reconnectionDelayGrowFactor: 1.3,
  minUptime: 5000,
  connectionTimeout: 4000,
  maxRetries: 10,
  maxEnqueuedMessages: 100,
  startClosed: false,
  debug: false,
} as const satisfies Omit<RwsOptions, 'WebSocket'>;

/** EVERY_RWS_OPTION as lines of an object literal in TypeScript source: `  name: value,` each. */
export const EVERY_RWS_OPTION_SOURCE = Object.entries(EVERY_RWS_OPTION)
  .map(([name, value]) => `  ${name}: ${String(value)},`)
  .join('\n');
