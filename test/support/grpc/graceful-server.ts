/**
 * A `node:http2` server on 127.0.0.1 that ends connections gracefully, on a plan: for the n-th TCP
 * connection (from 1), `plan(n)` is how long its session lives after the server's SETTINGS before
 * `session.destroy()` sends GOAWAY NO_ERROR and closes it (0: at once), or `'drop'` to destroy the
 * socket before any HTTP/2 (an attempt that fails). Connections are counted, with the time each was
 * accepted, at the underlying net server: what the server really saw, whatever the client reports.
 */
import { createServer as createHttp2Server, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';

/** What the server does with the n-th connection: a session lifetime in ms, or `'drop'`. */
export type GracefulPlan = (n: number) => number | 'drop';

export interface GracefulServer {
  /** `http://127.0.0.1:port`, for http2Connector. */
  readonly url: string;
  /** `127.0.0.1:port`, for ManagedChannel. */
  readonly address: string;
  /** When each TCP connection was accepted (`Date.now()`), in order. */
  readonly acceptedAt: readonly number[];
  /** When the server ended each connection (dropped it, or sent GOAWAY), by its index in `acceptedAt`. */
  readonly endedAt: readonly (number | undefined)[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Stops listening and destroys every connection and pending timer. */
  close(): Promise<void>;
}

/** Starts a {@link GracefulServer}; by default every session is ended at once. */
export async function startGracefulServer(plan: GracefulPlan = () => 0): Promise<GracefulServer> {
  const server = createHttp2Server();
  const acceptedAt: number[] = [];
  const endedAt: (number | undefined)[] = [];
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  // The lifetime of the connection whose session comes next: the http2 server makes the session, and
  // emits 'session', synchronously in its own 'connection' listener, which runs after this one.
  let lifetime = 0;
  let index = -1;
  server.prependListener('connection', (socket: Socket) => {
    acceptedAt.push(Date.now());
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    index = acceptedAt.length - 1;
    const step = plan(acceptedAt.length);
    if (step === 'drop') {
      // Destroyed before the http2 server sees it: the client reads no byte of HTTP/2.
      endedAt[index] = Date.now();
      socket.destroy();
    } else lifetime = step;
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
    const at = index;
    const end = (): void => {
      endedAt[at] = Date.now();
      session.destroy();
    };
    // The server's SETTINGS are queued as the session is made: a destroy now still sends them first,
    // then GOAWAY NO_ERROR.
    if (lifetime === 0) {
      end();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      end();
    }, lifetime);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const hostPort = `127.0.0.1:${String(address.port)}`;
  return {
    url: `http://${hostPort}`,
    address: hostPort,
    acceptedAt,
    endedAt,
    connections: () => acceptedAt.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
