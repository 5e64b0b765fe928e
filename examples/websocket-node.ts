/**
 * A WebSocket client in Node that reconnects with gRPC's backoff: redialer's ReconnectingWebSocket, a
 * drop-in for reconnecting-websocket, on the `ws` package. docs/websocket.md has the details.
 */
import WebSocket from 'ws';
import { ReconnectingWebSocket } from 'redialer/websocket';

/** Opens a reconnecting socket to `url`; every message goes to `onMessage`. Call `close()` when done. */
export function openFeed(
  url: string,
  onMessage: (text: string) => void,
  log: (line: string) => void = console.log,
): ReconnectingWebSocket {
  // Node 22+ has a global WebSocket; on Node 20 pass the class from `ws`.
  const socket = new ReconnectingWebSocket(url, [], { WebSocket });
  socket.state$.subscribe((s) => {
    if (s.state === 'TRANSIENT_FAILURE') {
      log(`TRANSIENT_FAILURE: reconnecting in ${String(Math.ceil((s.nextAttemptAt - Date.now()) / 1000))} s`);
    } else {
      log(s.state);
    }
  });
  socket.onmessage = (event) => {
    onMessage(String(event.data));
  };
  // Sent at once when open, else queued until the next connection: the result says which.
  const status = socket.sendWithStatus('subscribe');
  log(`subscribe: ${status}`);
  return socket;
}
