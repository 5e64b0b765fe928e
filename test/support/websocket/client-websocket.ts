/**
 * The WebSocket class the adapter's suites run on: the runtime's own where it has one (Node >= 22),
 * `ws` on Node 20. `REDIALER_TEST_WEBSOCKET=ws` forces `ws` everywhere.
 */
import WS from 'ws';
import type { WebSocketConstructor } from '../../../src/adapters/websocket/index.js';

const native = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
const forced = process.env['REDIALER_TEST_WEBSOCKET'] === 'ws';

/** The client WebSocket class of this run. */
export const ClientWebSocket: WebSocketConstructor = native !== undefined && !forced ? native : WS;

/** Which one it is, for test names and printed figures. */
export const clientWebSocketName =
  ClientWebSocket === native ? `Node ${process.versions.node}'s own WebSocket` : '`ws`';

/** Whether sockets of this run can send protocol pings (only `ws` can). */
export const hasProtocolPing = ClientWebSocket !== native;
