import { afterEach, describe, expect, it } from 'vitest';
import { withoutStackTrace } from '../../src/internal/without-stack-trace.js';
import { ConnectionFailedError } from '../../src/adapters/grpc/connection-failed-error.js';

describe('withoutStackTrace', () => {
  const limit = Error.stackTraceLimit;
  afterEach(() => {
    Error.stackTraceLimit = limit;
  });

  it('builds the error with no stack frames, its cause keeps its own, and the limit is restored', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const error = withoutStackTrace(() => new ConnectionFailedError('127.0.0.1:1', 'TRANSIENT_FAILURE', cause));
    expect(error.stack).toBe(
      'ConnectionFailedError: could not connect to 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(error.cause).toBe(cause);
    expect(cause.stack).toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('later').stack).toMatch(/\n\s+at /);
  });

  it('restores the limit when building throws', () => {
    expect(() =>
      withoutStackTrace(() => {
        throw new TypeError('bad');
      }),
    ).toThrow('bad');
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('captures the stack as usual where the limit cannot be written', () => {
    const descriptor = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
    Object.defineProperty(Error, 'stackTraceLimit', { value: limit, writable: false, configurable: true });
    try {
      expect(withoutStackTrace(() => new Error('frozen')).stack).toMatch(/\n\s+at /);
    } finally {
      if (descriptor !== undefined) Object.defineProperty(Error, 'stackTraceLimit', descriptor);
    }
  });
});
