/**
 * A connection whose server reports it is not serving (`AttemptContext.reportServing`, the port that
 * gRFC A17 health checking drives): TRANSIENT_FAILURE with `connected` while the connection stays open,
 * READY again when it serves, and never an attempt or a change to the backoff for either.
 */
import { describe, expect, it } from 'vitest';
import { isNotServingError } from '../../src/index.js';
import { NotServingError } from '../../src/errors/not-serving-error.js';
import { harness } from '../support/harness.js';

const down = new NotServingError('echo.Echo');

function established(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  h.manager.connect();
  h.clock.advanceBy(10);
  const attempt = h.fake.last!;
  attempt.establish('conn');
  return { ...h, attempt };
}

describe('reportServing(false) on a READY connection', () => {
  it('holds TRANSIENT_FAILURE with the connection open, then READY again on reportServing(true)', () => {
    const h = established();
    h.clock.advanceBy(100);
    h.attempt.context.reportServing(false, down);
    expect(h.manager.snapshot).toEqual({
      state: 'TRANSIENT_FAILURE',
      since: 110,
      attempt: 1,
      lastError: down,
      nextAttemptAt: Infinity,
      connected: true,
      connection: 'conn',
    });
    h.clock.advanceBy(60_000);
    expect(h.fake.attempts).toHaveLength(1);
    expect(h.attempt.torndown).toBe(false);
    h.attempt.context.reportServing(true);
    expect(h.manager.snapshot).toEqual({
      state: 'READY',
      since: 60_110,
      attempt: 1,
      lastError: undefined,
      connection: 'conn',
    });
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'READY']);
    expect(h.fake.attempts).toHaveLength(1);
    h.manager.shutdown();
  });

  it('says NOT_SERVING by default, and repeating a report changes nothing', () => {
    const h = established();
    h.attempt.context.reportServing(false);
    const first = h.manager.snapshot;
    expect(isNotServingError(first.lastError)).toBe(true);
    expect((first.lastError as Error).message).toBe('the server reports NOT_SERVING');
    h.attempt.context.reportServing(false, down);
    expect(h.manager.snapshot).toBe(first);
    h.attempt.context.reportServing(true);
    h.attempt.context.reportServing(true);
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'READY']);
    h.manager.shutdown();
  });

  it('names the service in the error', () => {
    expect(new NotServingError('echo.Echo').message).toBe('the server reports NOT_SERVING for "echo.Echo"');
    expect(new NotServingError('', 'SERVICE_UNKNOWN').message).toBe(
      'the server reports SERVICE_UNKNOWN for the whole server ("")',
    );
  });

  it('rejects a serving flag that is not a boolean, naming it', () => {
    const h = established();
    expect(() => {
      h.attempt.context.reportServing('no' as unknown as boolean);
    }).toThrow(/reportServing\(serving\) needs a boolean, got "no"/);
    h.manager.shutdown();
  });
});

describe('reported before the connection is emitted (gRFC A17: READY only after the first answer)', () => {
  it('establishment lands in TRANSIENT_FAILURE, with the attempt settled and its cut cleared', () => {
    const h = harness();
    h.manager.connect();
    const attempt = h.fake.last!;
    attempt.context.reportServing(false, down);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.clock.advanceBy(5);
    attempt.establish('conn');
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', connected: true, lastError: down });
    // The cut at 20 s no longer applies: the connection is up.
    h.clock.advanceBy(120_000);
    expect(h.fake.attempts).toHaveLength(1);
    expect(attempt.torndown).toBe(false);
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE']);
    h.manager.shutdown();
    expect(attempt.torndown).toBe(true);
  });

  it('a report withdrawn before the emission leaves a plain READY', () => {
    const h = harness();
    h.manager.connect();
    const attempt = h.fake.last!;
    attempt.context.reportServing(false);
    attempt.context.reportServing(true);
    attempt.establish('conn');
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    h.manager.shutdown();
  });
});

describe('the connection ends while not serving: the rules of a READY connection', () => {
  it('after minUptime from its establishment (not from the report): backoff reset, reconnect at once', () => {
    const h = established({ minUptime: 5000 });
    h.clock.advanceBy(1000);
    h.attempt.context.reportServing(false, down);
    h.clock.advanceBy(4000);
    h.attempt.fail(new Error('reset'));
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0, nextAttemptAt: 5010 });
    h.clock.advanceBy(0);
    expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
    expect(h.fake.attempts).toHaveLength(2);
    h.manager.shutdown();
  });

  it('before minUptime: a failed attempt, the next waits for its deadline', () => {
    const h = established({ minUptime: 5000 });
    h.clock.advanceBy(100);
    h.attempt.context.reportServing(false, down);
    h.clock.advanceBy(100);
    h.attempt.fail(new Error('reset'));
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: new Error('reset') });
    expect(h.manager.snapshot).not.toHaveProperty('connected');
    // The first attempt was given 1 s; the wait counts from the connection's end.
    expect(h.manager.snapshot.state === 'TRANSIENT_FAILURE' && h.manager.snapshot.nextAttemptAt).toBe(1210);
    h.manager.shutdown();
  });

  it('a report after the connection ended does nothing', () => {
    const h = established();
    const attempt = h.attempt;
    attempt.fail(new Error('reset'));
    const after = h.manager.snapshot;
    attempt.context.reportServing(false, down);
    expect(h.manager.snapshot).toBe(after);
    h.manager.shutdown();
  });
});

describe('the manager’s calls while not serving', () => {
  it('resetBackoff() and wake() start nothing; pause() holds the connection; idle() closes it', () => {
    const h = established();
    h.attempt.context.reportServing(false, down);
    const before = h.manager.snapshot;
    h.manager.resetBackoff();
    h.manager.wake();
    h.manager.pause();
    h.manager.resume();
    expect(h.manager.snapshot).toBe(before);
    expect(h.fake.attempts).toHaveLength(1);
    h.manager.idle();
    expect(h.manager.snapshot.state).toBe('IDLE');
    expect(h.attempt.torndown).toBe(true);
    h.manager.shutdown();
  });

  it('shutdown() closes the connection and leaves no timer', () => {
    const h = established();
    h.attempt.context.reportServing(false, down);
    h.manager.shutdown();
    expect(h.attempt.torndown).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.completed()).toBe(true);
  });

  it('a connection lost while paused and not serving holds for resume()', () => {
    const h = established();
    h.attempt.context.reportServing(false, down);
    h.manager.pause();
    h.attempt.fail(new Error('reset'));
    expect(h.manager.snapshot).toMatchObject({ state: 'IDLE', paused: true });
    h.manager.shutdown();
  });
});
