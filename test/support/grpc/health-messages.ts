/**
 * The two messages of grpc.health.v1.Health, encoded by hand (field 1 only: `HealthCheckRequest {
 * string service = 1; }`, `HealthCheckResponse { ServingStatus status = 1; }`), and a plain grpc-js
 * client of Check and Watch on them, so the tests can talk to any health server without a .proto file.
 */
import { Client, type ClientReadableStream, credentials, type ServiceError } from '@grpc/grpc-js';

/** ServingStatus by its wire value. */
const STATUS_NAMES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
export type ServingStatusName = (typeof STATUS_NAMES)[number];

const CHECK = '/grpc.health.v1.Health/Check';
const WATCH = '/grpc.health.v1.Health/Watch';

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}

function readVarint(bytes: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length; i++) {
    const byte = bytes[i]!;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
    if (byte < 0x80) return [value, i + 1];
  }
  throw new Error('truncated varint');
}

/** A HealthCheckRequest naming `service` ('' is the whole server: no field at all, as protobuf sends it). */
export function encodeHealthRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  return name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, ...varint(name.length)]), name]);
}

/** The status of a HealthCheckResponse (UNKNOWN when field 1 is absent); other fields are skipped. */
export function decodeHealthResponse(bytes: Buffer): ServingStatusName {
  let status = 0;
  let at = 0;
  while (at < bytes.length) {
    const [key, afterKey] = readVarint(bytes, at);
    const wire = key & 7;
    if (wire === 0) {
      const [value, next] = readVarint(bytes, afterKey);
      if (key >> 3 === 1) status = value;
      at = next;
    } else if (wire === 2) {
      const [length, next] = readVarint(bytes, afterKey);
      at = next + length;
    } else if (wire === 1) at = afterKey + 8;
    else if (wire === 5) at = afterKey + 4;
    else throw new Error(`unsupported wire type ${String(wire)}`);
  }
  const name = STATUS_NAMES[status];
  if (name === undefined) throw new Error(`unknown ServingStatus ${String(status)}`);
  return name;
}

const identity = (bytes: Buffer): Buffer => bytes;

/** An open Watch stream: the statuses received so far, and how it ended. */
export interface HealthWatch {
  readonly statuses: readonly ServingStatusName[];
  /** Resolves once `count` statuses arrived in all (rejects if the stream ends first or after `ms`). */
  received(count: number, ms?: number): Promise<readonly ServingStatusName[]>;
  /** The error the stream ended with, once it ended with one. */
  readonly error: () => ServiceError | undefined;
  cancel(): void;
}

/** A grpc-js client (insecure, to 127.0.0.1) of the health service on `address`. */
export class HealthClient {
  private readonly client: Client;

  constructor(address: string) {
    this.client = new Client(address, credentials.createInsecure());
  }

  /** Check: resolves with the status, rejects with the ServiceError (NOT_FOUND, UNIMPLEMENTED…). */
  check(service: string, deadlineMs = 5_000): Promise<ServingStatusName> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        CHECK,
        encodeHealthRequest,
        identity,
        service,
        { deadline: Date.now() + deadlineMs },
        (error: ServiceError | null, reply?: Buffer) => {
          if (error !== null) reject(error);
          else resolve(decodeHealthResponse(reply!));
        },
      );
    });
  }

  /** Opens a Watch stream on `service`. */
  watch(service: string): HealthWatch {
    const stream: ClientReadableStream<Buffer> = this.client.makeServerStreamRequest(
      WATCH,
      encodeHealthRequest,
      identity,
      service,
    );
    const statuses: ServingStatusName[] = [];
    let error: ServiceError | undefined;
    let ended = false;
    const changed = new Set<() => void>();
    const notify = (): void => {
      for (const listener of [...changed]) listener();
    };
    stream.on('data', (reply: Buffer) => {
      statuses.push(decodeHealthResponse(reply));
      notify();
    });
    stream.on('error', (e: ServiceError) => {
      error = e;
    });
    stream.on('close', () => {
      ended = true;
      notify();
    });
    return {
      statuses,
      error: () => error,
      cancel: () => {
        stream.cancel();
      },
      received: (count, ms = 5_000) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            changed.delete(check);
            reject(
              new Error(`Watch got ${JSON.stringify(statuses)} within ${String(ms)} ms, not ${String(count)} statuses`),
            );
          }, ms);
          function check(): void {
            if (statuses.length < count && !ended) return;
            clearTimeout(timer);
            changed.delete(check);
            if (statuses.length >= count) resolve(statuses.slice(0, count));
            else reject(error ?? new Error(`Watch ended after ${JSON.stringify(statuses)}`));
          }
          changed.add(check);
          check();
        }),
    };
  }

  close(): void {
    this.client.close();
  }
}
