/**
 * The test service, defined without .proto files: JSON messages, shared by the test clients and the
 * test servers.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';

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
