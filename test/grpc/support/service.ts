/**
 * A small gRPC service for the integration tests, defined without .proto files: JSON messages over
 * `makeGenericClientConstructor`, served by a real grpc-js server on 127.0.0.1.
 */
import {
  type ChannelOptions,
  type Client,
  type ClientReadableStream,
  type ClientDuplexStream,
  type ServerDuplexStream,
  type ClientUnaryCall,
  type ClientOptions,
  type ChannelCredentials,
  Metadata,
  type CallOptions,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
  makeGenericClientConstructor,
} from '@grpc/grpc-js';
import { createServer, type Server as NetServer, type Socket } from 'node:net';

const json = {
  serialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString()) as unknown,
};

export interface EchoRequest {
  readonly text: string;
}
export interface CountRequest {
  /** First sequence number to send. */
  readonly from: number;
}
export interface Tick {
  readonly seq: number;
}

export const testService: ServiceDefinition = {
  echo: {
    path: '/redialer.test.Test/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
  count: {
    path: '/redialer.test.Test/Count',
    requestStream: false,
    responseStream: true,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
  // Bidi: each CountRequest the client writes restarts the count from its `from`, up to 5 ticks.
  chat: {
    path: '/redialer.test.Test/Chat',
    requestStream: true,
    responseStream: true,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

/** The generic client, as `makeGenericClientConstructor` builds it (what generated code does too). */
export interface TestClient extends Client {
  echo(request: EchoRequest, metadata: Metadata, options: Partial<CallOptions>, callback: sendUnaryData<EchoRequest>): ClientUnaryCall;
  echo(request: EchoRequest, callback: sendUnaryData<EchoRequest>): ClientUnaryCall;
  count(request: CountRequest, metadata?: Metadata, options?: Partial<CallOptions>): ClientReadableStream<Tick>;
  chat(metadata?: Metadata, options?: Partial<CallOptions>): ClientDuplexStream<CountRequest, Tick>;
}

const TestClientCtor = makeGenericClientConstructor(testService, 'Test') as unknown as new (
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
) => TestClient;

export function createTestClient(address: string, credentials: ChannelCredentials, options?: ClientOptions): TestClient {
  return new TestClientCtor(address, credentials, options);
}

/** Echo as a promise; rejects with the grpc-js ServiceError. */
export function echo(client: TestClient, text: string, metadata?: Metadata, deadline?: Date): Promise<EchoRequest> {
  return new Promise((resolve, reject) => {
    const callback: sendUnaryData<EchoRequest> = (error, reply) => {
      if (error instanceof Error) reject(error);
      else if (error !== null) reject(new Error(error.details ?? 'call failed'));
      else resolve(reply!);
    };
    if (metadata === undefined && deadline === undefined) client.echo({ text }, callback);
    else client.echo({ text }, metadata ?? new Metadata(), deadline === undefined ? {} : { deadline }, callback);
  });
}

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
}

interface Running {
  readonly grpc: Server;
  readonly listener: NetServer;
  readonly sockets: Set<Socket>;
}

/** A grpc-js server fed by our own TCP listener (through its connection injector), so a test can crash it. */
async function run(options: TestServerOptions, port: number): Promise<Running> {
  const grpc = build(options);
  const injector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
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
  return new Promise((resolve) => running.listener.close(() => {
    resolve();
  }));
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
  const address = running.listener.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const port = address.port;
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
