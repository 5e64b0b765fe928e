import type { ReconnectingWebSocketOptions, WebSocketConstructor } from '../../../src/adapters/websocket/index.js';
import type { VirtualClock } from '../../../src/testing/index.js';
import { FakeEnvironment } from './fake-websocket.js';

/**
 * The options that run a ReconnectingWebSocket on `clock` with the sockets of `WebSocket`: jitter at its
 * midpoint and a fake global scope, as fakeClient and virtualReconnectingWebSocket set them; for a test
 * that needs its own URL or clock.
 */
export function virtualTimeOptions(clock: VirtualClock, WebSocket: WebSocketConstructor): ReconnectingWebSocketOptions {
  return { WebSocket, scheduler: clock.scheduler, random: () => 0.5, environment: new FakeEnvironment() };
}
