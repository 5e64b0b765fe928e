/**
 * Listening on 127.0.0.1 for a test: the port a listener got, whether a port accepts, the sockets a
 * listener holds while they are open, and the teardown (destroy what it accepted, close) on its
 * cleanup list.
 */
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Cleanup } from './cleanup.js';

interface Listener {
  listen(port: number, host: string, listening: () => void): unknown;
  close(closed: () => void): unknown;
}

/** The port a listening server is bound to (throws for a pipe or a server not listening). */
export function portOf(server: { address(): AddressInfo | string | null }): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Listens on a free port of 127.0.0.1; resolves with that port. */
export async function listenOnFreePort(server: Listener & Parameters<typeof portOf>[0]): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return portOf(server);
}

/** Whether 127.0.0.1:`port` accepts a TCP connection now (the connection is closed at once). */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/**
 * Holds `socket` in `sockets` until it closes, and ignores its errors: a test's peer may reset it at
 * any moment, and the test reads what happened from the connection's other end.
 */
export function track(sockets: Set<Socket>, socket: Socket): void {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => undefined);
}

/** Listens on a free port of 127.0.0.1; `cleanup` then destroys each of `sockets` and closes `server`. */
export async function listenOnLoopback(server: Listener, sockets: Iterable<Socket>, cleanup: Cleanup): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  );
}
