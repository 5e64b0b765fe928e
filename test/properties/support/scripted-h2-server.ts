/**
 * A node:http2 server on 127.0.0.1 that does, with each TCP connection in turn, what a script says,
 * and records the connection as the schedule checker reads it (test/support/connection-schedule.ts):
 * counted when its `connection` event fires, at the server, on the monotonic clock.
 */
import { constants, createServer as createHttp2Server, type ServerHttp2Session } from 'node:http2';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AttemptEnd, TracedAttempt } from '../../support/connection-schedule.js';

/** What the server does with one connection. */
export type ScriptedBehaviour =
  /** Destroys the socket at once. */
  | { readonly kind: 'refuse' }
  /** Closes the socket after `after` ms without a byte of HTTP/2. */
  | { readonly kind: 'accept-close'; readonly after: number }
  /** Sends SETTINGS and, once the client's SETTINGS are in, `session.destroy()` (GOAWAY NO_ERROR) after `uptime` ms. */
  | { readonly kind: 'settings-goaway'; readonly uptime: number }
  /** Sends SETTINGS, then GOAWAY ENHANCE_YOUR_CALM, and closes. */
  | { readonly kind: 'enhance-your-calm' };

interface Connection {
  readonly start: number;
  readyAt?: number;
  end?: AttemptEnd;
  open: boolean;
}

export interface ScriptedServer {
  readonly port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Connections open now. */
  open(): number;
  /** The most connections that were open at once. */
  mostOpen(): number;
  /** The trace so far; connections the client ended count as `stopped` from `stoppedFrom` on, before as cut (`failed`). */
  attempts(): readonly TracedAttempt[];
  /** From now on, a connection the client closes was closed by its shutdown. */
  stopping(): void;
  /** Ms on the server's clock (0 when it started). */
  now(): number;
  close(): Promise<void>;
}

export async function startScriptedServer(script: readonly ScriptedBehaviour[]): Promise<ScriptedServer> {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const connections: Connection[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let mostOpen = 0;
  let stopping = false;
  let handing: Connection | undefined;
  const later = (ms: number, act: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      act();
    }, ms);
    timers.add(timer);
  };

  const h2 = createHttp2Server();
  h2.on('session', (session: ServerHttp2Session) => {
    const connection = handing;
    const behaviour = connection === undefined ? undefined : script[connections.indexOf(connection) % script.length];
    session.on('error', () => undefined);
    if (connection === undefined || behaviour === undefined) return;
    session.once('remoteSettings', () => {
      // The server's own SETTINGS went out when the session started: the client is READY now.
      connection.readyAt = now();
      const readyAt = connection.readyAt;
      if (behaviour.kind === 'enhance-your-calm') {
        connection.end ??= { kind: 'lost', readyAt, at: now(), graceful: false };
        // destroy(undefined, code) would send NO_ERROR: the code goes out only with an error.
        session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM);
        session.destroy();
      } else if (behaviour.kind === 'settings-goaway') {
        const end = () => {
          connection.end ??= { kind: 'lost', readyAt, at: now(), graceful: true };
          session.destroy();
        };
        if (behaviour.uptime === 0) end();
        else later(behaviour.uptime, end);
      }
    });
  });

  const server = createServer((socket) => {
    const connection: Connection = { start: now(), open: true };
    const behaviour = script[connections.length % script.length] ?? { kind: 'refuse' };
    connections.push(connection);
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      connection.open = false;
      connection.end ??= { kind: stopping || connection.readyAt !== undefined ? 'stopped' : 'failed', at: now() };
    });
    switch (behaviour.kind) {
      case 'refuse':
        connection.end = { kind: 'failed', at: now() };
        socket.destroy();
        return;
      case 'accept-close':
        socket.resume();
        later(behaviour.after, () => {
          connection.end ??= { kind: 'failed', at: now() };
          socket.destroy();
        });
        return;
      case 'settings-goaway':
      case 'enhance-your-calm':
        handing = connection;
        h2.emit('connection', socket);
        handing = undefined;
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    accepted: () => connections.length,
    open: () => sockets.size,
    mostOpen: () => mostOpen,
    attempts: () => connections.map(({ start, end }) => ({ start, end })),
    stopping: () => {
      stopping = true;
    },
    now,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        h2.close();
        server.close(() => {
          resolve();
        });
      }),
  };
}
