/**
 * redialer/websocket: a reconnecting WebSocket on redialer's connection state machine, a drop-in
 * for reconnecting-websocket 4.x. Runs on the browser's WebSocket, Node >= 22's, and `ws` (pass it as
 * the `WebSocket` option on Node 20).
 * @module redialer/websocket
 */
export {
  ReconnectingWebSocket,
  ReconnectingWebSocket as default,
  type DropEvent,
  type DropReason,
  type FlushEvent,
  type EventHandler,
  type Listener,
  type ListenerOptions,
  type ReconnectingWebSocketEventMap,
  type SendStatus,
  type WebSocketSnapshot,
} from './reconnecting-websocket.js';
export { WEBSOCKET_DEFAULTS, type ReconnectingWebSocketOptions } from './websocket-options.js';
export {
  DEFAULT_PERMANENT_CLOSE_CODES,
  SERVER_BACKOFF_CLOSE_CODES,
  decideClose,
  parseCloseReasonDelay,
  type CloseDecision,
  type ClosePolicy,
} from './close-policy.js';
export { CloseEvent, ErrorEvent } from './websocket-events.js';
export type { Event, ListenersMap, Options, WebSocketEventMap } from './peer-types.js';
export { WebSocketCloseError, isWebSocketCloseError } from './websocket-close-error.js';
export { HeartbeatTimeoutError, isHeartbeatTimeoutError } from './heartbeat-timeout-error.js';
export type { HeartbeatOptions } from './heartbeat.js';
export type { EnvironmentLike, EventTargetLike } from '../../internal/environment-watch.js';
export {
  ReadyState,
  type CloseEventLike,
  type ErrorEventLike,
  type Message,
  type MessageEventLike,
  type ProtocolsProvider,
  type UrlProvider,
  type WebSocketConstructor,
  type WebSocketEventLike,
  type WebSocketLike,
} from './websocket-types.js';
