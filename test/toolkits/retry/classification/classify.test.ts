import { Metadata, status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../../../src/index.js';
import {
  AttemptTimeoutError,
  DEFAULT_RETRYABLE_HTTP_STATUSES,
  HttpResponseError,
  RetryError,
  classify,
  createClassifier,
  markRetriesExhausted,
  permanentFailure,
  transient,
} from '../../../../src/toolkits/retry/index.js';
import { grpcError, systemError } from '../support.js';

describe('HTTP statuses', () => {
  it.each([
    [408, 'no'],
    [429, 'no'],
    [503, 'no'],
    [500, 'maybe'],
    [502, 'maybe'],
    [504, 'maybe'],
    [599, 'maybe'],
  ])('%i is transient; sent: %s', (status, sent) => {
    expect(classify(new HttpResponseError(new Response(null, { status })))).toMatchObject({ kind: 'transient', sent });
  });

  it.each([400, 401, 403, 404, 409, 422, 501, 505, 511])('%i is permanent, with its reason', (status) => {
    expect(classify(new HttpResponseError({ status, headers: {} }))).toEqual({
      kind: 'permanent',
      reason: `HTTP ${String(status)} is not a retryable status`,
    });
  });

  it('reads axios/ky-style `response.status` and got/Node-style `statusCode`', () => {
    expect(classify(Object.assign(new Error('x'), { response: { status: 503 } })).kind).toBe('transient');
    expect(classify(Object.assign(new Error('x'), { response: { statusCode: 404 } })).kind).toBe('permanent');
    expect(classify(Object.assign(new Error('x'), { statusCode: 429 })).kind).toBe('transient');
  });

  it('the set is configurable', () => {
    const c = createClassifier({ retryableHttpStatuses: [...DEFAULT_RETRYABLE_HTTP_STATUSES, 409] });
    expect(c({ status: 409 }).kind).toBe('transient');
    expect(createClassifier({ retryableHttpStatuses: [503] })({ status: 500 }).kind).toBe('permanent');
    expect(() => createClassifier({ retryableHttpStatuses: [99] })).toThrow(/retryableHttpStatuses.*99/);
  });
});

describe('Node and undici network codes, on the error or its causes', () => {
  it.each([
    ['ECONNREFUSED', 'no'],
    ['EAI_AGAIN', 'no'],
    ['ENETUNREACH', 'no'],
    ['EHOSTUNREACH', 'no'],
    ['UND_ERR_CONNECT_TIMEOUT', 'no'],
    ['ECONNRESET', 'maybe'],
    ['ETIMEDOUT', 'maybe'],
    ['EPIPE', 'maybe'],
    ['UND_ERR_SOCKET', 'maybe'],
    ['UND_ERR_HEADERS_TIMEOUT', 'maybe'],
    ['UND_ERR_BODY_TIMEOUT', 'maybe'],
  ])('%s is transient; sent: %s', (code, sent) => {
    expect(classify(systemError(code))).toMatchObject({ kind: 'transient', sent });
    // Node's fetch: TypeError('fetch failed') with the system error as its cause.
    expect(classify(new TypeError('fetch failed', { cause: systemError(code) }))).toMatchObject({
      kind: 'transient',
      sent,
    });
  });

  it('a code two causes deep, and inside an AggregateError (happy eyeballs)', () => {
    const deep = new Error('outer', { cause: new Error('middle', { cause: systemError('ECONNRESET') }) });
    expect(classify(deep)).toMatchObject({ kind: 'transient', sent: 'maybe' });
    const aggregate = new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], 'all failed');
    expect(classify(new TypeError('fetch failed', { cause: aggregate }))).toMatchObject({
      kind: 'transient',
      sent: 'no',
    });
  });

  it('a cyclic cause chain terminates', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.defineProperty(a, 'cause', { value: b });
    expect(classify(a).kind).toBe('permanent');
  });

  it.each(['ENOTFOUND', 'EACCES', 'UND_ERR_INVALID_ARG', 'CERT_HAS_EXPIRED'])('%s is permanent', (code) => {
    expect(classify(systemError(code)).kind).toBe('permanent');
  });
});

describe('fetch network TypeErrors', () => {
  it.each(['Failed to fetch', 'fetch failed', 'NetworkError when attempting to fetch resource.', 'Load failed'])(
    '%j is transient',
    (message) => {
      expect(classify(new TypeError(message))).toMatchObject({ kind: 'transient', sent: 'maybe' });
    },
  );

  it('any other TypeError is a bug, permanent', () => {
    expect(classify(new TypeError("Cannot read properties of undefined (reading 'x')"))).toMatchObject({
      kind: 'permanent',
    });
  });
});

describe('gRPC status codes', () => {
  it('UNAVAILABLE is transient and proves nothing was processed', () => {
    expect(classify(grpcError(status.UNAVAILABLE))).toEqual({
      kind: 'transient',
      reason: 'gRPC UNAVAILABLE',
      sent: 'no',
    });
  });

  it.each([status.RESOURCE_EXHAUSTED, status.ABORTED, status.DEADLINE_EXCEEDED])(
    '%i is transient but may have been processed',
    (code) => {
      expect(classify(grpcError(code))).toMatchObject({ kind: 'transient', sent: 'maybe' });
    },
  );

  it.each([
    status.CANCELLED,
    status.UNKNOWN,
    status.INVALID_ARGUMENT,
    status.NOT_FOUND,
    status.PERMISSION_DENIED,
    status.INTERNAL,
    status.UNAUTHENTICATED,
    status.UNIMPLEMENTED,
  ])('code %i is permanent', (code) => {
    expect(classify(grpcError(code)).kind).toBe('permanent');
  });

  it('a real @grpc/grpc-js-shaped ServiceError', () => {
    const error = Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code: status.UNAVAILABLE,
      details: 'No connection established',
      metadata: new Metadata(),
    });
    expect(classify(error).kind).toBe('transient');
  });

  it('a DOMException legacy numeric code is not a gRPC code', () => {
    const e = new DOMException('gone', 'NotFoundError'); // legacy code 8 = RESOURCE_EXHAUSTED's number
    expect((e as unknown as { code: number }).code).toBe(8);
    expect(classify(e).kind).toBe('permanent');
  });

  it('codes by name are configurable', () => {
    const c = createClassifier({ retryableGrpcCodes: ['UNAVAILABLE', 'INTERNAL'] });
    expect(c(grpcError(status.INTERNAL)).kind).toBe('transient');
    expect(c(grpcError(status.ABORTED)).kind).toBe('permanent');
    expect(() => createClassifier({ retryableGrpcCodes: ['NOPE'] })).toThrow(/retryableGrpcCodes.*"NOPE"/);
  });
});

describe('our own and marked errors', () => {
  it('our per-attempt timeout is transient and may have reached the server', () => {
    expect(classify(new AttemptTimeoutError(1, 100))).toMatchObject({ kind: 'transient', sent: 'maybe' });
  });

  it('a core PermanentError is permanent', () => {
    expect(classify(new PermanentError('denied')).kind).toBe('permanent');
  });

  it('an error an inner retry layer gave up on is permanent, whatever the rules say', () => {
    const inner = new RetryError('attempts', 3, systemError('ECONNRESET'), 'x');
    const c = createClassifier({ rules: [() => transient('rule says retry')] });
    expect(c(inner)).toMatchObject({ kind: 'permanent', reason: expect.stringMatching(/already given up/) as unknown });
    expect(c(markRetriesExhausted(systemError('ECONNRESET'))).kind).toBe('permanent');
  });

  it('anything unknown is permanent, and says what it was', () => {
    expect(classify(new RangeError('bad'))).toEqual({
      kind: 'permanent',
      reason: 'not a recognised transient failure (RangeError: bad)',
    });
    expect(classify('a string').reason).toMatch(/"a string"/);
    expect(classify(undefined).kind).toBe('permanent');
  });
});

describe('user rules', () => {
  it('come first and may defer with undefined', () => {
    class Busy extends Error {}
    const c = createClassifier({
      rules: [
        (e) => (e instanceof Busy ? transient('busy', 'no') : undefined),
        (e) => (e === 'stop' ? permanentFailure('told to stop') : undefined),
      ],
    });
    expect(c(new Busy())).toEqual({ kind: 'transient', reason: 'busy', sent: 'no' });
    expect(c('stop')).toEqual({ kind: 'permanent', reason: 'told to stop' });
    expect(c(systemError('ECONNRESET')).kind).toBe('transient');
    expect(() => createClassifier({ rules: ['x' as never] })).toThrow(/rules/);
  });
});
