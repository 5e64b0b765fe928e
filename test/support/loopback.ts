/** Listening on 127.0.0.1 for a test, with the teardown (destroy what it accepted, close) on its cleanup list. */
import type { Socket } from 'node:net';
import type { Cleanup } from './cleanup.js';

interface Listener {
  listen(port: number, host: string, listening: () => void): unknown;
  close(closed: () => void): unknown;
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
