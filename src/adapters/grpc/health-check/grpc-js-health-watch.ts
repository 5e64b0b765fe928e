/**
 * The Watch stream on a grpc-js channel (a `ManagedChannel` connection's), made through grpc-js's
 * generic client on that channel, so that it goes through grpc-js's call stack (framing, the
 * channel's call credentials, as A17 wants) like any call.
 * @module
 */
import { type Channel, Client, type ClientReadableStream, connectivityState, credentials } from '@grpc/grpc-js';
import { decodeHealthResponse, HEALTH_WATCH_PATH } from './health-messages.js';
import { INTERNAL } from './grpc-status.js';
import type { HealthWatchTransport } from './health-checked.js';

const asIs = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The Watch stream over a grpc-js channel, for `ManagedChannel`. */
export const grpcJsHealthWatch: HealthWatchTransport<Channel> = {
  open(channel, request, handlers) {
    // The client only borrows the channel (channelOverride); it is never closed, which would close the channel.
    const client = new Client(channel.getTarget(), credentials.createInsecure(), { channelOverride: channel });
    let over = false;
    const call: ClientReadableStream<Buffer> = client.makeServerStreamRequest(
      HEALTH_WATCH_PATH,
      asIs,
      (bytes: Buffer) => bytes,
      request,
    );
    call.on('data', (message: Buffer) => {
      if (over) return;
      let status;
      try {
        status = decodeHealthResponse(message);
      } catch (error) {
        over = true;
        call.cancel();
        handlers.end(INTERNAL, (error as Error).message);
        return;
      }
      handlers.status(status);
    });
    // The end arrives as 'status' (every end, OK included); 'error' repeats it for a non-OK status.
    call.on('error', () => undefined);
    call.on('status', (status: { code: number; details: string }) => {
      if (over) return;
      over = true;
      handlers.end(status.code, status.details);
    });
    return () => {
      if (over) return;
      over = true;
      call.cancel();
    };
  },
  isOpen: (channel) => channel.getConnectivityState(false) === connectivityState.READY,
};
