import { Metadata } from '@grpc/grpc-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS } from '../../../../src/core/index.js';
import { GRPC_PUSHBACK_KEY, parseGrpcPushback, readGrpcPushback } from '../../../../src/toolkits/retry/index.js';

describe('grpc-retry-pushback-ms (gRFC A6, Pushback)', () => {
  it.each([
    ['0', 0],
    ['250', 250],
    ['00010', 10],
  ])('%j: wait exactly %i ms', (value, delay) => {
    expect(parseGrpcPushback(value)).toEqual({ kind: 'wait', delay });
  });

  it.each(['-1', '-0', '1.5', 'abc', '', '1e3', '+5', '0x10', '5ms'])(
    '%j (negative or unparseable): do not retry',
    (value) => {
      expect(parseGrpcPushback(value)).toEqual({ kind: 'stop', value });
    },
  );

  it('absent: no pushback', () => {
    expect(parseGrpcPushback(undefined)).toEqual({ kind: 'none' });
    expect(readGrpcPushback(new Metadata())).toEqual({ kind: 'none' });
    expect(readGrpcPushback(undefined)).toEqual({ kind: 'none' });
  });

  it('a huge value is clamped to the longest timer, never Infinity', () => {
    expect(parseGrpcPushback('9'.repeat(400))).toEqual({ kind: 'wait', delay: MAX_DELAY_MS });
  });

  it('reads a real @grpc/grpc-js Metadata', () => {
    const metadata = new Metadata();
    metadata.set(GRPC_PUSHBACK_KEY, '1500');
    expect(readGrpcPushback(metadata)).toEqual({ kind: 'wait', delay: 1500 });
  });

  it('two values are unparseable: do not retry', () => {
    const metadata = new Metadata();
    metadata.add(GRPC_PUSHBACK_KEY, '10');
    metadata.add(GRPC_PUSHBACK_KEY, '20');
    expect(readGrpcPushback(metadata).kind).toBe('stop');
  });

  it('reads a plain object', () => {
    expect(readGrpcPushback({ 'grpc-retry-pushback-ms': '42' })).toEqual({ kind: 'wait', delay: 42 });
  });

  it('property: any value gives none, stop, or a finite wait in [0, MAX_DELAY_MS]', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: undefined }), (value) => {
        const verdict = parseGrpcPushback(value);
        return (
          verdict.kind !== 'wait' ||
          (Number.isFinite(verdict.delay) && verdict.delay >= 0 && verdict.delay <= MAX_DELAY_MS)
        );
      }),
    );
  });
});
