/**
 * A grpc-js client whose connection redialer keeps: gRPC's connection-backoff protocol, every attempt
 * cut at its deadline, and the channel's state as an Observable. docs/grpc.md has the details.
 */
import {
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  credentials,
  makeGenericClientConstructor,
} from '@grpc/grpc-js';
import { ManagedChannel } from 'redialer/grpc';

// A one-method service with JSON messages, so that the example needs no .proto file. A generated
// client (grpc-tools, ts-proto, @grpc/proto-loader) takes `channelOverride` the same way.
export const greeterService: ServiceDefinition = {
  sayHello: {
    path: '/example.Greeter/SayHello',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: { name: string }) => Buffer.from(JSON.stringify(value)),
    requestDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as { name: string },
    responseSerialize: (value: { message: string }) => Buffer.from(JSON.stringify(value)),
    responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as { message: string },
  },
};

interface GreeterClient extends Client {
  sayHello(request: { name: string }, callback: sendUnaryData<{ message: string }>): ClientUnaryCall;
}
const GreeterClient = makeGenericClientConstructor(greeterService, 'Greeter') as unknown as new (
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
) => GreeterClient;

/** Connects to a Greeter at `address`, logs every state change, and says hello once READY. */
export async function greet(address: string, log: (line: string) => void = console.log): Promise<string> {
  const channel = new ManagedChannel(address, credentials.createInsecure(), { waitForReady: true });
  const subscription = channel.state$.subscribe((s) => {
    if (s.state === 'TRANSIENT_FAILURE') {
      log(`TRANSIENT_FAILURE: reconnecting in ${String(Math.ceil((s.nextAttemptAt - Date.now()) / 1000))} s`);
    } else {
      log(s.state);
    }
  });
  // Existing client code, unchanged but for one option.
  const client = new GreeterClient(address, credentials.createInsecure(), { channelOverride: channel });
  try {
    // waitForReady: the call waits through connection failures (bounded by its deadline, if any).
    return await new Promise<string>((resolve, reject) => {
      client.sayHello({ name: 'redialer' }, (error, reply) => {
        if (error !== null) reject(error instanceof Error ? error : new Error(error.details ?? 'call failed'));
        else resolve(reply?.message ?? '');
      });
    });
  } finally {
    client.close();
    channel.close(); // shuts the manager down: no timer or socket is left behind
    subscription.unsubscribe();
  }
}
