/**
 * The grpc-js test servers, on 127.0.0.1: the test service, fed by our own TCP listener (so a test can
 * crash it), and a server that drops every connection after a while. A file whose name ends in
 * `grpc-server.ts` always uses the newest grpc-js, also when the suite runs the client side against an
 * older one (vitest.config.ts): the server is the foreign counterpart.
 */
import {
  type ChannelOptions,
  type ServerDuplexStream,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { listenOnFreePort, portOf, track } from '../loopback.js';
import { type CountRequest, type EchoRequest, testService, type Tick } from './test-service.js';

/** How the Count stream behaves on the server. */
export type CountHandler = (call: ServerWritableStream<CountRequest, Tick>) => void;

export interface TestServer {
  readonly port: number;
  readonly address: string;
  /** Stops the server the grpc-js way (forceShutdown): calls in flight are reset with RST_STREAM(CANCEL). */
  kill(): Promise<void>;
  /** Drops every TCP connection with no HTTP/2 goodbye, as a crashed process does: calls see UNAVAILABLE. */
  crash(): Promise<void>;
  /** Starts a new server on the same port (after kill() or crash(), or stopping the current one first). */
  restart(): Promise<void>;
  /** Stops for good (idempotent). */
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly count?: CountHandler;
  readonly serverOptions?: ChannelOptions;
  /**
   * TLS key and certificate (PEM); without them the server is insecure. (Credentials are built here,
   * by the server's own grpc-js, which the runs against another grpc-js version keep.)
   */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
}

/**
 * A Count handler that streams `from`, `from + 1` … `to - 1`, one every `every` ms, then ends with OK;
 * its timer stops when the call is cancelled or closed.
 */
export function ticker(to: number, every: number): CountHandler {
  return (call) => {
    let seq = call.request.from;
    const timer = setInterval(() => {
      if (call.cancelled) {
        clearInterval(timer);
        return;
      }
      if (seq >= to) {
        clearInterval(timer);
        call.end();
        return;
      }
      call.write({ seq });
      seq += 1;
    }, every);
    call.on('cancelled', () => {
      clearInterval(timer);
    });
    call.on('close', () => {
      clearInterval(timer);
    });
  };
}

interface Running {
  readonly grpc: Server;
  readonly listener: NetServer;
  readonly sockets: Set<Socket>;
}

/** A grpc-js server fed by our own TCP listener (through its connection injector), so a test can crash it. */
async function run(options: TestServerOptions, port: number): Promise<Running> {
  const grpc = build(options);
  const credentials =
    options.tls === undefined
      ? ServerCredentials.createInsecure()
      : ServerCredentials.createSsl(null, [{ private_key: options.tls.key, cert_chain: options.tls.cert }]);
  const injector = grpc.createConnectionInjector(credentials);
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    track(sockets, socket);
    injector.injectConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, '127.0.0.1', () => {
      listener.off('error', reject);
      resolve();
    });
  });
  return { grpc, listener, sockets };
}

function stopListening(running: Running): Promise<void> {
  return new Promise((resolve) =>
    running.listener.close(() => {
      resolve();
    }),
  );
}

function build(options: TestServerOptions): Server {
  const server = new Server(options.serverOptions);
  const impl: UntypedServiceImplementation = {
    echo: (call: ServerUnaryCall<EchoRequest, EchoRequest>, callback: sendUnaryData<EchoRequest>) => {
      callback(null, { text: call.request.text });
    },
    chat: (call: ServerDuplexStream<CountRequest, Tick>) => {
      call.on('data', (request: CountRequest) => {
        for (let seq = request.from; seq < request.from + 5; seq++) call.write({ seq });
        if (request.from >= 5) call.end();
        else call.emit('error', { code: 14, details: 'bidi stream dropped' });
      });
    },
    count:
      options.count ??
      ((call: ServerWritableStream<CountRequest, Tick>) => {
        call.end();
      }),
  };
  server.addService(testService, impl);
  return server;
}

/** Starts a test server on 127.0.0.1 (a free port). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  let running: Running | undefined = await run(options, 0);
  const port = portOf(running.listener);
  const kill = async (): Promise<void> => {
    const current = running;
    running = undefined;
    if (current === undefined) return;
    current.grpc.forceShutdown();
    for (const socket of current.sockets) socket.destroy();
    await stopListening(current);
  };
  const crash = async (): Promise<void> => {
    const current = running;
    running = undefined;
    if (current === undefined) return;
    for (const socket of current.sockets) socket.destroy();
    await stopListening(current);
    current.grpc.forceShutdown();
  };
  return {
    port,
    address: `127.0.0.1:${String(port)}`,
    kill,
    crash,
    restart: async () => {
      await kill();
      running = await run(options, port);
    },
    close: kill,
  };
}

/** A grpc-js server that speaks HTTP/2 (SETTINGS: the client is READY) and drops each connection after `ms`. */
export async function startFlappingServer(
  ms: number,
): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  const grpc = new Server();
  grpc.addService(testService, {
    echo: (call: ServerUnaryCall<EchoRequest, EchoRequest>, callback: sendUnaryData<EchoRequest>) => {
      callback(null, call.request);
    },
    count: () => undefined,
    chat: () => undefined,
  });
  const injector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let accepted = 0;
  const listener = createServer((socket) => {
    accepted += 1;
    track(sockets, socket);
    injector.injectConnection(socket);
    const timer = setTimeout(() => {
      timers.delete(timer);
      socket.destroy();
    }, ms);
    timers.add(timer);
  });
  const port = await listenOnFreePort(listener);
  return {
    port,
    accepted: () => accepted,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      grpc.forceShutdown();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}
