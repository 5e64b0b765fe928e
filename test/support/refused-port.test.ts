import { type Server, connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { holdRefusedPort } from './refused-port.js';

/** Listens on `port`: resolves with the error, or undefined (and closes the server) if it listened. */
function tryListen(port: number): Promise<NodeJS.ErrnoException | undefined> {
  const server: Server = createServer();
  return new Promise((resolve) => {
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => {
      server.close(() => {
        resolve(undefined);
      });
    });
  });
}

describe('holdRefusedPort', () => {
  it('refuses connections, and no server can take the port while it is held', async () => {
    const held = await holdRefusedPort();
    try {
      const refused = await new Promise<NodeJS.ErrnoException>((resolve) => {
        connect(held.port, '127.0.0.1').once('error', resolve);
      });
      expect(refused.code).toBe('ECONNREFUSED');
      expect((await tryListen(held.port))?.code).toBe('EADDRINUSE');
    } finally {
      await held.release();
    }
  });
});
