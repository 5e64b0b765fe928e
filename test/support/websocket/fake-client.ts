import { createVirtualClock } from '../../../src/testing/index.js';
import {
  type DropEvent,
  type ReconnectingWebSocketOptions,
  ReconnectingWebSocket,
  type WebSocketSnapshot,
} from '../../../src/adapters/websocket/index.js';
import { FakeEnvironment, fakeWebSocketClass } from './fake-websocket.js';

/** The URL every fake client connects to. */
export const FAKE_URL = 'ws://example.test/feed';

/**
 * A ReconnectingWebSocket on a virtual clock with scriptable sockets, jitter at its midpoint and a
 * fake global scope; records its snapshots, its drop events and the clock time of each socket made.
 * Push `socket` onto `open` so that the test file's afterEach closes it.
 */
export function fakeClient(
  open: ReconnectingWebSocket[],
  options: ReconnectingWebSocketOptions = {},
  protocols?: string | string[] | null,
) {
  const clock = createVirtualClock();
  const fake = fakeWebSocketClass();
  const environment = new FakeEnvironment();
  const starts: number[] = [];
  const WebSocket = class extends fake.WebSocket {
    constructor(url: string, p?: string | string[]) {
      super(url, p);
      starts.push(clock.now());
    }
  };
  const socket = new ReconnectingWebSocket(FAKE_URL, protocols, {
    WebSocket,
    scheduler: clock.scheduler,
    random: () => 0.5,
    environment,
    ...options,
  });
  open.push(socket);
  const snapshots: WebSocketSnapshot[] = [];
  socket.state$.subscribe((s) => snapshots.push(s));
  const drops: DropEvent[] = [];
  socket.addEventListener('drop', (e) => drops.push(e));
  return { clock, fake, environment, socket, starts, snapshots, drops, last: fake.last };
}
