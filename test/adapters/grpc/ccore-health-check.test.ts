/**
 * Health checking (gRFC A17) against the C-core server (python3-grpcio) with its health service:
 * the server flips SERVING / NOT_SERVING, names a service it does not know yet, has no health service
 * at all, or dies. Both gRPC paths (ManagedChannel, and http2Connector under a ConnectionManager),
 * with the TCP connections the client dials counted: health checking changes states, not connections.
 */
import type { ClientHttp2Session } from 'node:http2';
import { expect, it } from 'vitest';
import { http2Connector, ManagedChannel } from '../../../src/adapters/grpc/index.js';
import {
  ConnectionManager,
  type ConnectionSnapshot,
  isNotServingError,
  type ConnectionManagerOptions,
} from '../../../src/index.js';
import { type CCoreServer, startCCoreServer } from '../../support/grpc/ccore-server.js';
import { describeCCore, onCleanup } from '../../support/grpc/ccore-suite.js';
import { countClientSockets } from '../../support/grpc/client-sockets.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { record, until } from '../../support/grpc/record.js';
import type { HealthCheckOptions } from '../../../src/adapters/grpc/health-check/health-checked.js';

interface Path {
  readonly state$: ManagedChannel['state$'];
  readonly manager: { readonly snapshot: ConnectionSnapshot; connect(): void };
}

/** The two ways to health-check a gRPC connection, each on its own manager. */
const PATHS: Record<string, (address: string, healthCheck: HealthCheckOptions, extra?: object) => Path> = {
  ManagedChannel: (address, healthCheck, extra = {}) => {
    const channel = new ManagedChannel(address, insecure, { ...FAST, ...extra, healthCheck });
    onCleanup(() => {
      channel.close();
    });
    return { state$: channel.state$, manager: channel.manager };
  },
  http2Connector: (address, healthCheck, extra = {}) => {
    const options: ConnectionManagerOptions<ClientHttp2Session> = {
      ...FAST,
      ...extra,
      connector: http2Connector(`http://${address}`, { healthCheck }),
    };
    const manager = new ConnectionManager<ClientHttp2Session>(options);
    onCleanup(() => {
      manager.shutdown();
    });
    return { state$: manager.state$ as Path['state$'], manager };
  },
};

const notServing = (s: ConnectionSnapshot): boolean => s.state === 'TRANSIENT_FAILURE' && s.connected === true;
const ready = (s: ConnectionSnapshot): boolean => s.state === 'READY';

async function serve(health = true): Promise<{ server: CCoreServer; sockets: ReturnType<typeof countClientSockets> }> {
  const server = await startCCoreServer({}, { health });
  onCleanup(() => server.kill());
  const sockets = countClientSockets(server.port);
  onCleanup(() => {
    sockets.stop();
  });
  return { server, sockets };
}

describeCCore('health checking against the C-core server', () => {
  for (const [name, open] of Object.entries(PATHS)) {
    it(`${name}: NOT_SERVING and back to SERVING on one connection`, { timeout: 15_000 }, async () => {
      const { server, sockets } = await serve();
      const path = open(server.address, { serviceName: '' });
      const log = record(path.state$);
      onCleanup(log.stop);
      path.manager.connect();
      await until(path.state$, ready);

      const flippedAt = Date.now();
      await server.setHealth('', 'NOT_SERVING');
      const down = await until(path.state$, notServing);
      expect(isNotServingError(down.lastError)).toBe(true);
      expect((down.lastError as Error).message).toBe('the server reports NOT_SERVING for the whole server ("")');
      const backAt = Date.now();
      await server.setHealth('', 'SERVING');
      const up = await until(path.state$, ready);

      expect(log.states(), log.describe()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'READY']);
      expect(sockets.dialled()).toBe(1);
      console.info(
        `${name} on C-core: NOT_SERVING -> not READY ${String(down.since - flippedAt)} ms after setHealth was sent, ` +
          `SERVING -> READY ${String(up.since - backAt)} ms; TCP connections dialled ${String(sockets.dialled())}`,
      );
    });

    it(`${name}: a service the server does not know yet holds the first READY back`, { timeout: 15_000 }, async () => {
      const { server, sockets } = await serve();
      const path = open(server.address, { serviceName: 'echo.Echo' });
      const log = record(path.state$);
      onCleanup(log.stop);
      path.manager.connect();
      const down = await until(path.state$, notServing);
      expect(down.lastError).toMatchObject({ status: 'SERVICE_UNKNOWN', service: 'echo.Echo' });
      await server.setHealth('echo.Echo', 'SERVING');
      await until(path.state$, ready);
      // Never READY before the first answer: CONNECTING went straight to TRANSIENT_FAILURE (connected).
      expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE', 'READY']);
      expect(sockets.dialled()).toBe(1);
    });

    it(`${name}: a server without a health service counts as serving, said once`, { timeout: 15_000 }, async () => {
      const { server, sockets } = await serve(false);
      const notes: string[] = [];
      const path = open(server.address, {
        serviceName: '',
        log: (message) => {
          notes.push(message);
        },
      });
      const log = record(path.state$);
      onCleanup(log.stop);
      path.manager.connect();
      await until(path.state$, ready);
      // The connection stays READY, and the Watch is not retried.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(/no health service \(Watch: UNIMPLEMENTED/);
      expect(sockets.dialled()).toBe(1);
    });

    it(`${name}: the server dies: the connection's loss, not a not-serving report`, { timeout: 15_000 }, async () => {
      const { server } = await serve();
      const path = open(server.address, { serviceName: '' }, { maxRetries: 0 });
      const log = record(path.state$);
      onCleanup(log.stop);
      path.manager.connect();
      await until(path.state$, ready);
      await server.kill();
      await until(path.state$, (s) => s.state !== 'READY');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(log.snapshots.some(notServing)).toBe(false);
    });
  }
});
