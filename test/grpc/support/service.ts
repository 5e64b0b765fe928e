/**
 * A small gRPC service for the integration tests, defined without .proto files: JSON messages over
 * `makeGenericClientConstructor`, served by a real grpc-js server on 127.0.0.1.
 */
import {
  type ChannelOptions,
  type Client,
  type ClientReadableStream,
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
};

/** The generic client, as `makeGenericClientConstructor` builds it (what generated code does too). */
export interface TestClient extends Client {
  echo(request: EchoRequest, metadata: Metadata, options: Partial<CallOptions>, callback: sendUnaryData<EchoRequest>): ClientUnaryCall;
  echo(request: EchoRequest, callback: sendUnaryData<EchoRequest>): ClientUnaryCall;
  count(request: CountRequest, metadata?: Metadata, options?: Partial<CallOptions>): ClientReadableStream<Tick>;
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
  /** Drops every connection at once (a crash): in-flight calls fail with UNAVAILABLE. */
  kill(): Promise<void>;
  /** Starts a new server on the same port. */
  restart(): Promise<void>;
  /** Stops for good (idempotent). */
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly count?: CountHandler;
  readonly serverOptions?: ChannelOptions;
}

function bind(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${String(port)}`, ServerCredentials.createInsecure(), (error, bound) => {
      if (error !== null) reject(error);
      else resolve(bound);
    });
  });
}

function build(options: TestServerOptions): Server {
  const server = new Server(options.serverOptions);
  const impl: UntypedServiceImplementation = {
    echo: (call: ServerUnaryCall<EchoRequest, EchoRequest>, callback: sendUnaryData<EchoRequest>) => {
      callback(null, { text: call.request.text });
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
  let server: Server | undefined = build(options);
  const port = await bind(server, 0);
  const kill = (): Promise<void> => {
    const current = server;
    server = undefined;
    if (current === undefined) return Promise.resolve();
    current.forceShutdown();
    return Promise.resolve();
  };
  return {
    port,
    address: `127.0.0.1:${String(port)}`,
    kill,
    restart: async () => {
      await kill();
      const next = build(options);
      await bind(next, port);
      server = next;
    },
    close: kill,
  };
}
