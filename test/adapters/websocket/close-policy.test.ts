/** The close-code rules and the delay hint, as tables. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PERMANENT_CLOSE_CODES,
  type CloseDecision,
  decideClose,
  parseCloseReasonDelay,
} from '../../../src/adapters/websocket/index.js';

const close = (code: number, reason = '') => ({ type: 'close', code, reason, wasClean: true });
const defaults = { permanentCloseCodes: DEFAULT_PERMANENT_CLOSE_CODES, shouldReconnect: undefined };

describe('decideClose', () => {
  it.each<[number, string, CloseDecision]>([
    [1000, '', { action: 'reconnect' }],
    [1001, '', { action: 'reconnect' }],
    [1006, '', { action: 'reconnect' }],
    [1011, '', { action: 'reconnect' }],
    [1008, '', { action: 'stop', why: 'permanent-code' }],
    [4401, '', { action: 'stop', why: 'permanent-code' }],
    [4403, '', { action: 'stop', why: 'permanent-code' }],
    [1012, '', { action: 'server-backoff', hintMs: undefined }],
    [1013, 'retry-after=7', { action: 'server-backoff', hintMs: 7000 }],
  ])('code %i, reason %j -> %o', (code, reason, expected) => {
    expect(decideClose(close(code, reason), defaults)).toEqual(expected);
  });

  it('asks shouldReconnect only for codes the rules above do not settle', () => {
    const asked: number[] = [];
    const policy = {
      permanentCloseCodes: [4401],
      shouldReconnect: (e: { code: number }) => {
        asked.push(e.code);
        return false;
      },
    };
    expect(decideClose(close(4401), policy).action).toBe('stop');
    expect(decideClose(close(1013), policy).action).toBe('server-backoff');
    expect(decideClose(close(1006), policy)).toEqual({ action: 'stop', why: 'should-reconnect' });
    expect(asked).toEqual([1006]);
  });
});

describe('parseCloseReasonDelay', () => {
  it.each<[string, number | undefined]>([
    ['retry-after=30', 30_000],
    ['Retry-After: 2.5', 2500],
    ['overloaded; retry after 1500ms', 1500],
    ['retry_after=3s', 3000],
    ['45', 45_000],
    ['250ms', 250],
    ['', undefined],
    ['maintenance', undefined],
    ['retry-after=soon', undefined],
  ])('%j -> %s', (reason, expected) => {
    expect(parseCloseReasonDelay(reason)).toBe(expected);
  });
});
