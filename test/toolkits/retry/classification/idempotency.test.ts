import { describe, expect, it } from 'vitest';
import { hasPrecondition, idempotencyOfMethod, maySendAgain } from '../../../../src/toolkits/retry/index.js';

describe('idempotency', () => {
  it.each([
    ['idempotent', false, 'maybe', true],
    ['idempotent', false, 'no', true],
    ['conditional', true, 'maybe', true],
    ['conditional', false, 'maybe', false],
    ['conditional', false, 'no', true],
    ['never', true, 'maybe', false],
    ['never', false, 'no', true],
  ] as const)('%s, precondition %s, sent %s: may send again = %s', (idempotency, precondition, sent, expected) => {
    expect(maySendAgain(idempotency, precondition, sent)).toBe(expected);
  });

  it('finds preconditions in Headers, a Request and plain objects', () => {
    expect(hasPrecondition(new Headers({ 'If-Match': '"v1"' }))).toBe(true);
    expect(
      hasPrecondition(new Request('http://example.test/', { method: 'PUT', headers: { 'if-unmodified-since': 'x' } })),
    ).toBe(true);
    expect(hasPrecondition({ 'x-goog-if-generation-match': '42' })).toBe(true);
    expect(hasPrecondition({ 'content-type': 'application/json' })).toBe(false);
    expect(hasPrecondition(undefined)).toBe(false);
  });

  it('HTTP methods per RFC 9110 §9.2.2', () => {
    expect(['GET', 'head', 'PUT', 'DELETE', 'OPTIONS', 'TRACE'].map(idempotencyOfMethod)).toEqual(
      Array(6).fill('idempotent'),
    );
    expect(['POST', 'PATCH', 'CONNECT', 'PURGE'].map(idempotencyOfMethod)).toEqual(Array(4).fill('never'));
  });
});
