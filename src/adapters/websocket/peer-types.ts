/**
 * The type names that reconnecting-websocket 4.4 and partysocket 1.3 export, as aliases of
 * redialer's own, so that switching either import to `redialer/websocket` compiles unchanged:
 * `import ReconnectingWebSocket, { type Options, type Event } from 'redialer/websocket'`.
 * @module
 */
import type { Listener, ReconnectingWebSocketEventMap } from './reconnecting-websocket.js';
import type { ReconnectingWebSocketOptions } from './websocket-options.js';
import type { WebSocketEventLike } from './websocket-types.js';

/** The peers' name for {@link ReconnectingWebSocketOptions}. */
export type Options = ReconnectingWebSocketOptions;

/** The peers' name for {@link ReconnectingWebSocketEventMap}. */
export type WebSocketEventMap = ReconnectingWebSocketEventMap;

/**
 * reconnecting-websocket's `Event` type: an event the client dispatches (the socket's own, or one it
 * made); `target` is the socket or client that dispatched it, where the event says.
 */
export type Event = WebSocketEventLike & { readonly target?: unknown };

/** reconnecting-websocket's listener lists, by event type. */
export type ListenersMap = {
  [K in keyof Omit<ReconnectingWebSocketEventMap, 'drop' | 'flush'>]: Listener<ReconnectingWebSocketEventMap[K]>[];
};
