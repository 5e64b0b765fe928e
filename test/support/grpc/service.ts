/**
 * A small gRPC service for the integration tests, defined without .proto files: JSON messages over
 * `makeGenericClientConstructor` (the client side, here), served by a real grpc-js server on 127.0.0.1
 * (`grpc-server.ts`).
 */
import {
  type Client,
  type ClientReadableStream,
  type ClientDuplexStream,
  type ClientUnaryCall,
  type ClientOptions,
  type ChannelCredentials,
  Metadata,
  type CallOptions,
  type sendUnaryData,
  makeGenericClientConstructor,
} from '@grpc/grpc-js';
import { type CountRequest, type EchoRequest, testService, type Tick } from './test-service.js';

export * from './test-service.js';
export {
  type CountHandler,
  startFlappingServer,
  startTestServer,
  type TestServer,
  type TestServerOptions,
  ticker,
} from './grpc-server.js';

/** The generic client, as `makeGenericClientConstructor` builds it (what generated code does too). */
export interface TestClient extends Client {
  echo(
    request: EchoRequest,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: sendUnaryData<EchoRequest>,
  ): ClientUnaryCall;
  echo(request: EchoRequest, callback: sendUnaryData<EchoRequest>): ClientUnaryCall;
  count(request: CountRequest, metadata?: Metadata, options?: Partial<CallOptions>): ClientReadableStream<Tick>;
  chat(metadata?: Metadata, options?: Partial<CallOptions>): ClientDuplexStream<CountRequest, Tick>;
}

const TestClientCtor = makeGenericClientConstructor(testService, 'Test') as unknown as new (
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
) => TestClient;

export function createTestClient(
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
): TestClient {
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
