/**
 * A port on 127.0.0.1 that nothing listens on: bound to an ephemeral port, noted, closed. Connections
 * to it are refused (until something else happens to take the port).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

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
