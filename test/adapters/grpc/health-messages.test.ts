/**
 * The hand-coded grpc.health.v1 messages: HealthCheckRequest { string service = 1; } as protobuf encodes
 * it (varint lengths of any size, '' as no field at all), and HealthCheckResponse { ServingStatus
 * status = 1; } decoded from wire bytes written by hand, with unknown fields of every wire type skipped
 * and malformed input refused with a RangeError. The test support's encoder and decoder (the tests'
 * own health client) must agree byte for byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeHealthResponse,
  encodeHealthRequest,
  HEALTH_WATCH_PATH,
  SERVING_STATUSES,
} from '../../../src/adapters/grpc/health-check/health-messages.js';
import {
  decodeHealthResponse as supportDecode,
  encodeHealthRequest as supportEncode,
} from '../../support/grpc/health-messages.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];

/** A protobuf varint, written independently of the code under test (BigInt, 7 bits at a time). */
function varint(value: number | bigint): number[] {
  let rest = BigInt(value);
  const out: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return out;
}

/** Reads a HealthCheckRequest back: field 1 (length-delimited, UTF-8), nothing else. */
function readRequest(encoded: Uint8Array): string {
  if (encoded.length === 0) return '';
  expect(encoded[0]).toBe(0x0a);
  let length = 0;
  let scale = 1;
  let at = 1;
  for (;;) {
    const byte = encoded[at++];
    if (byte === undefined) throw new Error('truncated length');
    length += (byte & 0x7f) * scale;
    scale *= 0x80;
    if (byte < 0x80) break;
  }
  expect(encoded.length - at).toBe(length);
  return new TextDecoder('utf-8', { fatal: true }).decode(encoded.subarray(at));
}

/** A HealthCheckResponse carrying `status` (the proto3 encoder omits the default, 0). */
function response(status: number): number[] {
  return status === 0 ? [] : [0x08, ...varint(status)];
}

/** One unknown field of each wire type that a decoder must skip (field numbers 2 to 2^29 - 1). */
const unknownField = fc.oneof(
  fc
    .tuple(fc.integer({ min: 2, max: 2 ** 29 - 1 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
    .map(([field, value]) => [...varint(field * 8), ...varint(value)]),
  fc
    .tuple(fc.integer({ min: 2, max: 2 ** 29 - 1 }), fc.uint8Array({ minLength: 8, maxLength: 8 }))
    .map(([field, payload]) => [...varint(field * 8 + 1), ...payload]),
  fc
    .tuple(fc.integer({ min: 2, max: 2 ** 29 - 1 }), fc.uint8Array({ maxLength: 300 }))
    .map(([field, payload]) => [...varint(field * 8 + 2), ...varint(payload.length), ...payload]),
  fc
    .tuple(fc.integer({ min: 2, max: 2 ** 29 - 1 }), fc.uint8Array({ minLength: 4, maxLength: 4 }))
    .map(([field, payload]) => [...varint(field * 8 + 5), ...payload]),
);

/** Service names: any Unicode (astral planes included), and long ones whose length needs a 2- or 3-byte varint. */
const serviceName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 100, maxLength: 400 }),
  fc.string({ unit: 'binary-ascii', minLength: 128, maxLength: 20_000 }),
);

describe('encodeHealthRequest', () => {
  it("'' (the whole server) is no field at all: empty bytes, as protobuf sends the default", () => {
    expect(encodeHealthRequest('')).toEqual(new Uint8Array(0));
  });

  it('a short name is field 1, wire type 2, a one-byte length and the UTF-8 bytes', () => {
    expect(encodeHealthRequest('echo.Echo')).toEqual(bytes(0x0a, 9, ...utf8('echo.Echo')));
    // 'é' is two bytes, '😀' four (a surrogate pair in JS): the length counts bytes, not UTF-16 units.
    expect(encodeHealthRequest('é😀')).toEqual(bytes(0x0a, 6, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80));
  });

  it.each([
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [16_383, [0xff, 0x7f]],
    [16_384, [0x80, 0x80, 0x01]],
  ])('a name of %i bytes has the length varint %j', (length, head) => {
    const encoded = encodeHealthRequest('s'.repeat(length));
    expect([...encoded.subarray(0, 1 + head.length)]).toEqual([0x0a, ...head]);
    expect(encoded.length).toBe(1 + head.length + length);
  });

  it('a multi-byte name over 127 bytes (64 × é = 128 bytes) gets a two-byte length', () => {
    expect([...encodeHealthRequest('é'.repeat(64)).subarray(0, 3)]).toEqual([0x0a, 0x80, 0x01]);
  });

  it('round-trips every service name (property)', () => {
    fc.assert(
      fc.property(serviceName, (name) => {
        expect(readRequest(encodeHealthRequest(name))).toBe(name);
      }),
      { numRuns: 300 },
    );
  });

  it('encodes exactly as the test support’s encoder (the tests’ own health client) does (property)', () => {
    fc.assert(
      fc.property(serviceName, (name) => {
        expect([...encodeHealthRequest(name)]).toEqual([...supportEncode(name)]);
      }),
      { numRuns: 300 },
    );
  });

  it('names the Watch method of grpc.health.v1.Health', () => {
    expect(HEALTH_WATCH_PATH).toBe('/grpc.health.v1.Health/Watch');
  });
});

describe('decodeHealthResponse', () => {
  it('knows the four statuses by their wire values', () => {
    expect(SERVING_STATUSES).toEqual(['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN']);
  });

  it.each([
    ['no field (proto3 default)', [], 'UNKNOWN'],
    ['status 0 sent explicitly', [0x08, 0x00], 'UNKNOWN'],
    ['status 1', [0x08, 0x01], 'SERVING'],
    ['status 2', [0x08, 0x02], 'NOT_SERVING'],
    ['status 3', [0x08, 0x03], 'SERVICE_UNKNOWN'],
    ['an unknown enum value (9)', [0x08, 0x09], 'UNKNOWN'],
    ['an unknown enum value over a byte (300)', [0x08, 0xac, 0x02], 'UNKNOWN'],
    ['a negative enum value (-1, ten-byte varint)', [0x08, ...varint(2n ** 64n - 1n)], 'UNKNOWN'],
    ['1 in a non-minimal two-byte varint', [0x08, 0x81, 0x00], 'SERVING'],
    ['the field repeated: the last one wins', [0x08, 0x01, 0x08, 0x02], 'NOT_SERVING'],
    ['SERVING then the default written out', [0x08, 0x01, 0x08, 0x00], 'UNKNOWN'],
  ] as const)('%s → %s', (_what, wire, status) => {
    expect(decodeHealthResponse(bytes(...wire))).toBe(status);
  });

  it.each([
    ['wire type 0 (varint, field 2)', [0x10, 0x96, 0x01]],
    ['wire type 0 (varint, a large field number)', [...varint((2 ** 29 - 1) * 8), 0x05]],
    ['wire type 1 (64-bit, field 3)', [0x19, 1, 2, 3, 4, 5, 6, 7, 8]],
    ['wire type 2 (length-delimited, field 4)', [0x22, 0x03, 0x08, 0x02, 0x08]],
    ['wire type 2, empty', [0x22, 0x00]],
    ['wire type 2, over 127 bytes', [0x22, 0x80, 0x01, ...new Array<number>(128).fill(0x08)]],
    ['wire type 5 (32-bit, field 5)', [0x2d, 0x08, 0x02, 0x08, 0x02]],
    ['field 1 with another wire type (length-delimited)', [0x0a, 0x01, 0x02]],
  ])('skips an unknown field of %s, before and after the status', (_what, unknown) => {
    expect(decodeHealthResponse(bytes(...unknown))).toBe('UNKNOWN');
    expect(decodeHealthResponse(bytes(...unknown, 0x08, 0x01))).toBe('SERVING');
    expect(decodeHealthResponse(bytes(0x08, 0x02, ...unknown))).toBe('NOT_SERVING');
    expect(decodeHealthResponse(bytes(...unknown, 0x08, 0x03, ...unknown))).toBe('SERVICE_UNKNOWN');
  });

  it('decodes any status among any unknown fields (property), as the test support’s decoder does', () => {
    fc.assert(
      fc.property(
        fc.array(unknownField, { maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(unknownField, { maxLength: 4 }),
        (before, status, after) => {
          const wire = bytes(...before.flat(), ...response(status), ...after.flat());
          const expected = SERVING_STATUSES[status];
          expect(decodeHealthResponse(wire)).toBe(expected);
          expect(supportDecode(Buffer.from(wire))).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decodes an unknown enum value among unknown fields as UNKNOWN (property)', () => {
    fc.assert(
      fc.property(
        fc.array(unknownField, { maxLength: 3 }),
        fc.bigInt({ min: 4n, max: 2n ** 64n - 1n }),
        (fields, status) => {
          expect(decodeHealthResponse(bytes(...fields.flat(), 0x08, ...varint(status)))).toBe('UNKNOWN');
        },
      ),
    );
  });

  it.each([
    ['a key cut inside its varint', [0x80]],
    ['a key with no value', [0x08]],
    ['a value cut inside its varint', [0x08, 0x81]],
    ['an unknown varint cut short', [0x10, 0xff, 0xff]],
    ['a varint longer than ten bytes', [0x08, ...new Array<number>(10).fill(0x80), 0x01]],
    ['a 64-bit field with 3 of its 8 bytes', [0x19, 1, 2, 3]],
    ['a 32-bit field with 1 of its 4 bytes', [0x2d, 1]],
    ['a length-delimited field shorter than its length', [0x22, 0x05, 1, 2]],
    ['a length-delimited field with no length', [0x22]],
    ['a length far past the end', [0x22, 0xff, 0xff, 0xff, 0xff, 0x0f]],
    ['a status, then a truncated field', [0x08, 0x01, 0x1d, 0x00]],
  ])('%s throws a RangeError', (_what, wire) => {
    expect(() => decodeHealthResponse(bytes(...wire))).toThrow(RangeError);
  });

  it.each([
    ['3 (start group)', [0x1b]],
    ['4 (end group)', [0x1c]],
    ['6', [0x1e, 0x00]],
    ['7', [0x1f, 0x00]],
  ])('wire type %s throws a RangeError naming it', (type, wire) => {
    expect(() => decodeHealthResponse(bytes(...wire))).toThrow(
      new RangeError(`redialer: wire type ${type.slice(0, 1)} in a HealthCheckResponse`),
    );
  });

  it('a message cut inside a field throws a RangeError; cut between fields, it reads the fields before (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(unknownField, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (status, fields, cut) => {
          const parts = [response(status), ...fields];
          const whole = parts.flat();
          const at = cut % whole.length;
          const boundaries = parts.map((_, i) => parts.slice(0, i + 1).flat().length);
          const prefix = bytes(...whole.slice(0, at));
          if (at === 0) expect(decodeHealthResponse(prefix)).toBe('UNKNOWN');
          else if (boundaries.includes(at)) expect(decodeHealthResponse(prefix)).toBe(SERVING_STATUSES[status]);
          else expect(() => decodeHealthResponse(prefix)).toThrow(RangeError);
        },
      ),
      { numRuns: 500 },
    );
  });
});
