/**
 * A watch stream that survives server restarts: a `ResilientStream` following its `ManagedChannel`,
 * resumed from the last event seen, so a server that replays from that cursor delivers every event
 * once. docs/grpc.md ("A resilient stream") shows the same code with a generated client.
 */
import {
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientReadableStream,
  credentials,
  makeGenericClientConstructor,
  type Metadata,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { ManagedChannel, ResilientStream } from 'redialer/grpc';

export interface WatchRequest {
  readonly key: string;
  readonly fromRevision: number;
}
export interface WatchEvent {
  readonly key: string;
  readonly value: string;
  readonly revision: number;
}

// A one-method service with JSON messages, so that the example needs no .proto file.
export const watchService: ServiceDefinition = {
  watch: {
    path: '/example.Watch/Watch',
    requestStream: false,
    responseStream: true,
    requestSerialize: (value: WatchRequest) => Buffer.from(JSON.stringify(value)),
    requestDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as WatchRequest,
    responseSerialize: (value: WatchEvent) => Buffer.from(JSON.stringify(value)),
    responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as WatchEvent,
  },
};

interface WatchClient extends Client {
  watch(request: WatchRequest, metadata?: Metadata): ClientReadableStream<WatchEvent>;
}
const WatchClient = makeGenericClientConstructor(watchService, 'Watch') as unknown as new (
  address: string,
  credentials: ChannelCredentials,
  options?: ClientOptions,
) => WatchClient;

/** A running watch: `close()` ends it and leaves no timer or socket behind. */
export interface Watch {
  readonly stream: ResilientStream<WatchRequest, WatchEvent>;
  close(): void;
}

/** Watches `key` on the server at `address`, calling `apply` with each event in revision order. */
export function watchConfig(
  address: string,
  key: string,
  apply: (event: WatchEvent) => void,
  log: (line: string) => void = console.info,
): Watch {
  const channel = new ManagedChannel(address, credentials.createInsecure());
  const client = new WatchClient(address, credentials.createInsecure(), { channelOverride: channel });

  const watch = new ResilientStream<WatchRequest, WatchEvent>({
    channel, // re-open when the channel is READY again, not on a second backoff
    open: (request, { metadata }) => client.watch(request, metadata), // metadata asks to wait for READY
    request: (last) => ({ key, fromRevision: last === undefined ? 0 : last.revision + 1 }),
  });

  watch.state$.subscribe((s) => {
    log(`watch ${s.state}`);
  });
  watch.messages$.subscribe({
    next: apply,
    error: (error: unknown) => {
      log(`watch stopped: ${error instanceof Error ? error.message : String(error)}`);
    },
    complete: () => {
      log('watch ended');
    },
  });
  watch.start(); // subscribe first: messages$ does not replay

  return {
    stream: watch,
    close: () => {
      watch.close();
      client.close();
      channel.close();
    },
  };
}
