/**
 * The `ws` server of the WebSocket bench, in a process of its own, so that the clients' CPU is theirs
 * alone. It listens on 127.0.0.1 and counts, per subject (the first segment of the URL's path), the
 * WebSocket connections it accepted: connections, not attempts (an attempt at a port nobody listens
 * on never reaches it).
 *
 * Messages from the parent, each answered with `{ ok: true, … }` or `{ ok: false, error }`:
 * - `{ cmd: 'listen', port }` (0: any port): listens, answers `{ port }`;
 * - `{ cmd: 'drop' }`: stops listening (attempts are refused from then on) and terminates every socket
 *   (the TCP connection ends with no close frame, as when a network path or the server's host dies);
 * - `{ cmd: 'counts' }`: answers `{ accepted, open }`: connections accepted per subject since the
 *   process started, and sockets open now.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { answerIpc } from '../loopback/ipc-child.js';

type Message =
  { readonly cmd: 'listen'; readonly port: number } | { readonly cmd: 'drop' } | { readonly cmd: 'counts' };

/**
 * The listen backlog: 2,000 clients of one subject (6,000 in the rounds with every subject) can dial
 * in the same instant; the default 511 would make the server, not the clients, the bottleneck (dials
 * over the backlog wait for a SYN retransmit). The kernel caps it at `net.core.somaxconn`.
 */
const BACKLOG = 8192;

const http = createServer();
const wss = new WebSocketServer({ server: http });
const accepted = new Map<string, number>();
wss.on('connection', (socket, request) => {
  const subject = decodeURIComponent((request.url ?? '/').split('/')[1] ?? '');
  accepted.set(subject, (accepted.get(subject) ?? 0) + 1);
  // A client that closes or resets its end must not throw here.
  socket.on('error', () => undefined);
});

function listen(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => {
      reject(error);
    };
    http.once('error', fail);
    http.listen({ port, host: '127.0.0.1', backlog: BACKLOG }, () => {
      http.off('error', fail);
      resolve((http.address() as AddressInfo).port);
    });
  });
}

function handle(message: Message): Promise<object> | object {
  switch (message.cmd) {
    case 'listen':
      return listen(message.port).then((port) => ({ port }));
    case 'drop':
      // The listening socket first, so that no client reconnects in between.
      if (http.listening) http.close();
      for (const socket of wss.clients) socket.terminate();
      return {};
    case 'counts':
      return { accepted: Object.fromEntries(accepted), open: wss.clients.size };
  }
}

answerIpc(handle, () => {
  if (http.listening) http.close();
  for (const socket of wss.clients) socket.terminate();
  process.exit(0);
});
