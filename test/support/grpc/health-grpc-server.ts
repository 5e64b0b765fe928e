/**
 * A grpc-js backend on 127.0.0.1 with health checking: the test service of `test-service.ts` and the
 * official `grpc-health-check` package's HealthImplementation (grpc.health.v1.Health), fed by our own
 * TCP listener through grpc-js's connection injector, so that a test can kill it hard, bring it back
 * on the same port and count every TCP connection it accepted. Its name ends in `grpc-server.ts` so
 * that it keeps the newest grpc-js when the suite runs the clients against an older one
 * (vitest.config.ts); tests import it as `health-backend.ts`.
 */
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { portOf, track } from '../loopback.js';
import { type CountRequest, type EchoRequest, testService, type Tick } from './test-service.js';

export type { ServingStatus } from 'grpc-health-check';

export interface HealthBackend {
  readonly port: number;
  readonly address: string;
  /** Sets the status of `service` ('' is the whole server, SERVING at start); open Watch streams get it. */
  setStatus(service: string, status: ServingStatus): void;
  /** Stops hard: forceShutdown, every accepted socket destroyed, the port closed. */
  kill(): Promise<void>;
  /** Listens again on the same port (after kill(), or killing first); statuses are kept. */
  restart(): Promise<void>;
  /** TCP connections accepted so far, over every restart. */
  connections(): number;
  /** TCP connections open now. */
  open(): number;
  /** Stops for good (idempotent). */
  close(): Promise<void>;
}

interface Running {
  readonly grpc: Server;
  readonly listener: NetServer;
  readonly sockets: Set<Socket>;
}

const EADDRINUSE_RETRIES = 10;
const EADDRINUSE_PAUSE_MS = 50;

function listen(listener: NetServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, '127.0.0.1', () => {
      listener.off('error', reject);
      resolve();
    });
  });
}

/** forceShutdown, then every accepted socket destroyed and the port closed. */
async function stopHard({ grpc, listener, sockets }: Running): Promise<void> {
  grpc.forceShutdown();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) =>
    listener.close(() => {
      resolve();
    }),
  );
}

/** Starts a health backend on a free port of 127.0.0.1. */
export async function startHealthBackend(
  initial: Readonly<Record<string, ServingStatus>> = {},
): Promise<HealthBackend> {
  const health = new HealthImplementation({ '': 'SERVING', ...initial });
  let accepted = 0;

  const run = async (port: number): Promise<Running> => {
    const grpc = new Server();
    grpc.addService(testService, {
      echo: (call: ServerUnaryCall<EchoRequest, EchoRequest>, callback: sendUnaryData<EchoRequest>) => {
        callback(null, { text: call.request.text });
      },
      count: (call: ServerWritableStream<CountRequest, Tick>) => {
        call.end();
      },
      chat: () => undefined,
    });
    health.addToServer(grpc);
    const injector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
    const sockets = new Set<Socket>();
    const listener = createServer((socket) => {
      accepted += 1;
      track(sockets, socket);
      injector.injectConnection(socket);
    });
    for (let tries = 1; ; tries++) {
      try {
        await listen(listener, port);
        return { grpc, listener, sockets };
      } catch (error) {
        // The old listener's port may not be free again at once: try a few times.
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries >= EADDRINUSE_RETRIES) {
          grpc.forceShutdown();
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, EADDRINUSE_PAUSE_MS));
      }
    }
  };

  let running: Running | undefined = await run(0);
  const port = portOf(running.listener);
  const kill = async (): Promise<void> => {
    const current = running;
    running = undefined;
    if (current !== undefined) await stopHard(current);
  };
  return {
    port,
    address: `127.0.0.1:${String(port)}`,
    setStatus: (service, status) => {
      health.setStatus(service, status);
    },
    kill,
    restart: async () => {
      await kill();
      running = await run(port);
    },
    connections: () => accepted,
    open: () => running?.sockets.size ?? 0,
    close: kill,
  };
}
