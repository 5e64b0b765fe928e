/**
 * `redialer/sse`: Server-Sent Events that reconnect on gRPC's schedule and resume from
 * `Last-Event-ID` — `ReconnectingEventSource`, the EventSource interface over `fetch`, for browsers
 * and Node. See docs/sse.md.
 * @module
 */
export {
  type EventSourceHandler,
  type EventSourceMessageHandler,
  ReconnectingEventSource,
  type ReconnectingEventSourceOptions,
} from './reconnecting-event-source.js';
export type { EventStreamConnection, EventStreamHeaders } from './event-stream-connector.js';
export { EventStreamParser, type ParsedEvent, type ParserHandlers } from './event-stream-parser.js';
export { EventStreamResponseError, isEventStreamResponseError } from './event-stream-response-error.js';
export { IdleTimeoutError, isIdleTimeoutError } from './idle-timeout-error.js';
