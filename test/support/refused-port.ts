/**
 * Ports on 127.0.0.1 that nothing listens on, so that connections to them are refused.
 * {@link refusedPort} is a port bound, noted and closed: refused until something else happens to
 * take it, which a server elsewhere in a parallel run may do. {@link holdRefusedPort} is a port
 * that nothing can take until it is released.
 */
import { once } from 'node:events';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';

/** A port bound, noted and closed: refused until something else takes it (see the module comment). */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** {@link refusedPort} as an `http://` URL. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${String(await refusedPort())}/`;
}

/** A refused port held by {@link holdRefusedPort}. */
export interface HeldPort {
  readonly port: number;
  /** Lets the port go (and closes what held it). */
  release(): Promise<void>;
}

/**
 * A port on 127.0.0.1 that refuses connections and that no server can take until `release()`: the
 * local port of an open client connection (to a listener of its own). Nothing listens there, so a
 * connection to it is refused; the open connection keeps the port bound, so `listen()` on it fails
 * with EADDRINUSE and `listen(0)` never hands it out.
 */
export async function holdRefusedPort(): Promise<HeldPort> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined); // the holder's end may reset it on release
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const holder = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(holder, 'connect');
  const port = holder.localPort;
  if (port === undefined) throw new Error('holdRefusedPort: the holding connection has no local port');
  return {
    port,
    async release() {
      holder.destroy();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
