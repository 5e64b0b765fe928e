/**
 * The soak's flapping loopback `ws` server, in its own process (so that its sockets count against its
 * own file-descriptor limit, not the clients'). The parent drives the phases over IPC:
 *   { cmd: 'up' }    accept and keep connections, count every message;
 *   { cmd: 'flap' }  close every connection (1001, going away) and accept-then-close (1000) new ones;
 *   { cmd: 'stats' } answer with the counts;
 *   { cmd: 'stop' }  close everything and exit.
 * Messages are `<client>:<seq>` with seq rising per client; a seq not above the last one seen from its
 * client is counted as out of order (a duplicate would be one).
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface ServerStats {
  readonly delivered: number;
  readonly outOfOrder: number;
  readonly accepted: number;
  readonly open: number;
  readonly flaps: number;
}

type Command = { cmd: 'up' } | { cmd: 'flap' } | { cmd: 'stats' } | { cmd: 'stop' };

const wss = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  backlog: 4096,
  perMessageDeflate: false,
  clientTracking: true,
});
let phase: 'up' | 'down' = 'up';
let delivered = 0;
let outOfOrder = 0;
let accepted = 0;
let flaps = 0;
const lastSeq = new Map<string, number>();

function onMessage(data: Buffer): void {
  const text = data.toString();
  const colon = text.indexOf(':');
  const id = text.slice(0, colon);
  const seq = Number(text.slice(colon + 1));
  delivered += 1;
  if (seq <= (lastSeq.get(id) ?? -1)) outOfOrder += 1;
  else lastSeq.set(id, seq);
}

wss.on('connection', (socket: WebSocket) => {
  accepted += 1;
  socket.on('error', () => undefined);
  // Messages that arrive while the close handshake is under way are still delivered, and counted.
  socket.on('message', (data: Buffer) => {
    onMessage(data);
  });
  if (phase === 'down') socket.close(1000, 'flap');
});

wss.on('listening', () => {
  process.send?.({ port: (wss.address() as AddressInfo).port });
});

function stats(): ServerStats {
  return { delivered, outOfOrder, accepted, open: wss.clients.size, flaps };
}

process.on('message', (message: Command) => {
  switch (message.cmd) {
    case 'up':
      phase = 'up';
      process.send?.({ ok: true });
      return;
    case 'flap':
      phase = 'down';
      flaps += 1;
      for (const client of wss.clients) client.close(1001, 'going away');
      process.send?.({ ok: true });
      return;
    case 'stats':
      process.send?.(stats());
      return;
    case 'stop':
      for (const client of wss.clients) client.terminate();
      wss.close(() => {
        process.send?.(stats());
        process.exit(0);
      });
      return;
  }
});
process.on('disconnect', () => {
  process.exit(0);
});
