import { once } from 'node:events';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { type WebSocket as ServerSocket, WebSocketServer } from 'ws';

/** A real `ws` server on 127.0.0.1 that records what it receives. */
export interface TestServer {
  readonly port: number;
  readonly url: string;
  /** Text messages received, in order, over all connections. */
  readonly received: string[];
  /** Connections accepted so far. */
  connections: number;
  readonly clients: Set<ServerSocket>;
  /** Closes every client with `code` (or drops them when omitted) and stops listening. */
  stop(code?: number, reason?: string): Promise<void>;
}

/** Starts a server on `port` (0: any free port); `onConnection` runs for each accepted client. */
export async function startServer(
  port = 0,
  onConnection?: (client: ServerSocket, n: number) => void,
): Promise<TestServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  await once(wss, 'listening');
  const actualPort = (wss.address() as AddressInfo).port;
  let stopped = false;
  const server: TestServer = {
    port: actualPort,
    url: `ws://127.0.0.1:${String(actualPort)}/`,
    received: [],
    connections: 0,
    clients: new Set(),
    async stop(code, reason) {
      if (stopped) return;
      stopped = true;
      const closed = [...server.clients].map((client) =>
        client.readyState === client.CLOSED ? Promise.resolve() : once(client, 'close'),
      );
      for (const client of server.clients) {
        if (code === undefined) client.terminate();
        else client.close(code, reason);
      }
      await Promise.all(closed);
      await new Promise<void>((resolve, reject) => {
        wss.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
  };
  wss.on('connection', (client) => {
    server.connections += 1;
    server.clients.add(client);
    client.on('close', () => server.clients.delete(client));
    client.on('message', (data, isBinary) => {
      if (!isBinary) server.received.push(Buffer.from(data as Buffer).toString());
    });
    onConnection?.(client, server.connections);
  });
  return server;
}

/** A TCP server that accepts connections and never answers: a WebSocket upgrade never completes. */
export async function startBlackHole(): Promise<{ port: number; accepted: Socket[]; stop(): Promise<void> }> {
  const accepted: Socket[] = [];
  const server: Server = createServer((socket) => {
    accepted.push(socket);
    socket.resume(); // read (and discard) the upgrade request, so that the client's FIN is seen
    socket.on('error', () => undefined); // a client that gives up may reset the connection
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    accepted,
    async stop() {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
