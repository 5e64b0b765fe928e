/**
 * The two messages of grpc.health.v1.Health, encoded by hand: `HealthCheckRequest { string service = 1; }`
 * and `HealthCheckResponse { ServingStatus status = 1; }`. Two one-field messages do not justify a
 * protobuf runtime and a .proto file loaded at run time; the decoder skips unknown fields as protobuf
 * requires, so a newer health.proto still decodes.
 * @module
 */

/** A health status by its wire value (grpc.health.v1.HealthCheckResponse.ServingStatus). */
export const SERVING_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
/** A health status a Watch stream reports. */
export type ServingStatus = (typeof SERVING_STATUSES)[number];

/** The Watch method's path. */
export const HEALTH_WATCH_PATH = '/grpc.health.v1.Health/Watch';

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

function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 10; i++) {
    const byte = bytes[i] ?? 0;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
    if (byte < 0x80) return [value, i + 1];
  }
  throw new RangeError('redialer: a truncated varint in a HealthCheckResponse');
}

/** A HealthCheckRequest naming `service` (`""`, the whole server, is no field at all, as protobuf sends it). */
export function encodeHealthRequest(service: string): Uint8Array {
  const name = new TextEncoder().encode(service);
  if (name.length === 0) return new Uint8Array(0);
  const head = [0x0a, ...varint(name.length)];
  const out = new Uint8Array(head.length + name.length);
  out.set(head);
  out.set(name, head.length);
  return out;
}

/**
 * The status of a HealthCheckResponse (UNKNOWN when field 1 is absent, as proto3 sends the default).
 * A value this version does not know is UNKNOWN, which counts as not serving; a malformed message
 * throws a RangeError.
 */
export function decodeHealthResponse(bytes: Uint8Array): ServingStatus {
  let status = 0;
  let at = 0;
  while (at < bytes.length) {
    const [key, afterKey] = readVarint(bytes, at);
    const wire = key & 7;
    if (wire === 0) {
      const [value, next] = readVarint(bytes, afterKey);
      if (key >>> 3 === 1) status = value;
      at = next;
    } else if (wire === 2) {
      const [length, next] = readVarint(bytes, afterKey);
      at = next + length;
    } else if (wire === 1) at = afterKey + 8;
    else if (wire === 5) at = afterKey + 4;
    else throw new RangeError(`redialer: wire type ${String(wire)} in a HealthCheckResponse`);
    if (at > bytes.length) throw new RangeError('redialer: a truncated HealthCheckResponse');
  }
  return SERVING_STATUSES[status] ?? 'UNKNOWN';
}
