/**
 * A pass-through TCP proxy on 127.0.0.1 that reads the HTTP/2 frames crossing it, so a test can count
 * what really went over the wire to a server it did not write: TCP connections, the client's PINGs and
 * the server's GOAWAY frames (code and debug data).
 */
import { createConnection, createServer, type Socket } from 'node:net';
import { listenOnFreePort, track } from '../loopback.js';

const PREFACE_LENGTH = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
const FRAME_HEADER = 9;
const PING = 0x6;
const GOAWAY = 0x7;
const ACK = 0x1;

export interface Goaway {
  readonly at: number;
  readonly code: number;
  readonly debug: string;
}

export interface FrameCounter {
  readonly port: number;
  readonly address: string;
  /** TCP connections accepted (each one dialled through to the server). */
  readonly connections: () => number;
  /** TCP connections currently open. */
  readonly open: () => number;
  /** When each PING (not an ACK) from a client crossed, by `Date.now()`. */
  readonly pings: number[];
  /** Each GOAWAY the server sent. */
  readonly goaways: Goaway[];
  close(): Promise<void>;
}

/** Calls `onFrame(type, flags, payload)` for each frame of one direction of an HTTP/2 connection. */
function frameReader(
  skip: number,
  onFrame: (type: number, flags: number, payload: Buffer) => void,
): (chunk: Buffer) => void {
  let buffered = Buffer.alloc(0);
  let toSkip = skip;
  return (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (toSkip > 0) {
      const n = Math.min(toSkip, buffered.length);
      buffered = buffered.subarray(n);
      toSkip -= n;
    }
    while (buffered.length >= FRAME_HEADER) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < FRAME_HEADER + length) return;
      onFrame(buffered[3]!, buffered[4]!, buffered.subarray(FRAME_HEADER, FRAME_HEADER + length));
      buffered = buffered.subarray(FRAME_HEADER + length);
    }
  };
}

/** Starts a frame-counting proxy in front of `127.0.0.1:targetPort`. */
export async function startFrameCounter(targetPort: number): Promise<FrameCounter> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const pings: number[] = [];
  const goaways: Goaway[] = [];
  let connections = 0;
  const server = createServer((client) => {
    connections += 1;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      track(sockets, socket);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const fromClient = frameReader(PREFACE_LENGTH, (type, flags) => {
      if (type === PING && (flags & ACK) === 0) pings.push(Date.now());
    });
    const fromServer = frameReader(0, (type, _flags, payload) => {
      if (type === GOAWAY && payload.length >= 8) {
        goaways.push({ at: Date.now(), code: payload.readUInt32BE(4), debug: payload.subarray(8).toString('latin1') });
      }
    });
    client.on('data', (chunk: Buffer) => {
      fromClient(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      fromServer(chunk);
      client.write(chunk);
    });
  });
  const port = await listenOnFreePort(server);
  return {
    port,
    address: `127.0.0.1:${String(port)}`,
    connections: () => connections,
    open: () => clients.size,
    pings,
    goaways,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
