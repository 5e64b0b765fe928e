/**
 * The demo's two real servers on 127.0.0.1: a grpc-js server with one unary method (JSON messages,
 * no .proto file) and a `ws` WebSocket server that greets every client and echoes what it receives.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  type Metadata,
  type ServiceDefinition,
  type sendUnaryData,
  Server,
  ServerCredentials,
  makeGenericClientConstructor,
} from '@grpc/grpc-js';
import { WebSocketServer } from 'ws';

const json = {
  serialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString()) as unknown,
};

/** The request and the reply of the demo's one gRPC method. */
export interface Ping {
  readonly seq: number;
}

/** `demo.Pinger/Ping`: answers each Ping with the same Ping. */
export const pingerService: ServiceDefinition = {
  ping: {
    path: '/demo.Pinger/Ping',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

/** The client that `makeGenericClientConstructor` builds for {@link pingerService}. */
export interface PingerClient extends Client {
  ping(
    request: Ping,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: sendUnaryData<Ping>,
  ): ClientUnaryCall;
}

/** A Pinger client; pass `{ channelOverride }` to run it over a redialer ManagedChannel. */
export function createPingerClient(
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
): PingerClient {
  const Ctor = makeGenericClientConstructor(pingerService, 'Pinger') as unknown as new (
    address: string,
    credentials: ChannelCredentials,
    options?: ClientOptions,
  ) => PingerClient;
  return new Ctor(address, credentials, options);
}

/** A running demo server. */
export interface DemoServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the gRPC server on 127.0.0.1 (a free port). */
export async function startGrpcServer(): Promise<DemoServer> {
  const server = new Server();
  server.addService(pingerService, {
    ping: (call: { request: Ping }, callback: sendUnaryData<Ping>) => {
      callback(null, call.request);
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

/** Starts the WebSocket server on 127.0.0.1 (a free port): greets each client, echoes its messages. */
export async function startWebSocketServer(): Promise<DemoServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  wss.on('connection', (socket) => {
    socket.send('welcome');
    socket.on('message', (data, isBinary) => {
      socket.send(data, { binary: isBinary });
    });
  });
  return {
    port: (wss.address() as AddressInfo).port,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve, reject) => {
        wss.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      });
    },
  };
}
