/** A socket's end as the error the connection manager sees, as a table. */
import { describe, expect, it } from 'vitest';
import { isPermanentError } from '../../../src/errors/permanent-error.js';
import { isRetryAfterError, retryAfterDelayOf } from '../../../src/errors/retry-after-error.js';
import {
  DEFAULT_PERMANENT_CLOSE_CODES,
  isWebSocketCloseError,
  type ErrorEventLike,
} from '../../../src/adapters/websocket/index.js';
import { type CloseOutcomeOptions, closeOutcome, errorCause } from '../../../src/adapters/websocket/close-outcome.js';

const close = (code: number, reason = '') => ({ type: 'close', code, reason, wasClean: code !== 1006 });
const options: CloseOutcomeOptions = {
  permanentCloseCodes: DEFAULT_PERMANENT_CLOSE_CODES,
  shouldReconnect: undefined,
  serverHints: 'at-least',
  minDelay: 1000,
};

/** What the manager is told: 'transient', 'permanent' or `retry-after <ms>`. */
function kind(outcome: unknown): string {
  if (isPermanentError(outcome)) return 'permanent';
  if (isRetryAfterError(outcome)) return `retry-after ${String(retryAfterDelayOf(outcome))}`;
  return isWebSocketCloseError(outcome) ? 'transient' : 'other';
}

describe('closeOutcome', () => {
  it.each<[number, string, 'at-least' | 'exact', string]>([
    [1006, '', 'at-least', 'transient'],
    [1000, '', 'at-least', 'transient'],
    [1008, '', 'at-least', 'permanent'],
    [4401, '', 'at-least', 'permanent'],
    [1012, '', 'at-least', 'retry-after 1000'], // at least the first wait
    [1013, 'retry-after=0.5', 'at-least', 'retry-after 1000'], // a shorter hint does not shorten it
    [1013, 'retry-after=30', 'at-least', 'retry-after 30000'],
    [1013, 'retry-after=0.5', 'exact', 'retry-after 500'], // 'exact': the hint is the wait
    [1012, '', 'exact', 'retry-after 1000'], // no hint: as 'at-least'
  ])('code %i, reason %j, serverHints %s -> %s', (code, reason, serverHints, expected) => {
    expect(kind(closeOutcome(close(code, reason), undefined, true, { ...options, serverHints }))).toBe(expected);
  });

  it('a shouldReconnect that refuses makes it permanent', () => {
    expect(kind(closeOutcome(close(1000), undefined, true, { ...options, shouldReconnect: () => false }))).toBe(
      'permanent',
    );
  });

  it("carries the error event's error as the cause", () => {
    const cause = new Error('ECONNRESET');
    const outcome = closeOutcome(close(1006), { type: 'error', error: cause }, false, options);
    expect((outcome as Error).cause).toBe(cause);
  });
});

describe('errorCause', () => {
  it('is the error, else an Error of the message, else the event', () => {
    const error = new Error('boom');
    expect(errorCause({ type: 'error', error })).toBe(error);
    expect(errorCause({ type: 'error', message: 'refused' })).toEqual(new Error('refused'));
    const bare = { type: 'error', message: '' } as ErrorEventLike;
    expect(errorCause(bare)).toBe(bare);
  });
});
