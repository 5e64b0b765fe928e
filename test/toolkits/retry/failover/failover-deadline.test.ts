import { describe, expect, it } from 'vitest';
import {
  classify,
  DeadlineExceededError,
  type FailoverAttemptContext,
  failover,
  isAttemptTimeoutError,
  isDeadlineExceededError,
  isFailoverError,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';

describe('failover: the whole-call deadline', () => {
  it('aborts the attempt in flight with a DeadlineExceededError and rejects with FailoverError(deadline)', async () => {
    const clock = createVirtualClock();
    const seen: FailoverAttemptContext[] = [];
    const send = failover(
      [
        {
          name: 'silent',
          breaker: false,
          call: (_args: string, context) => {
            seen.push(context);
            return new Promise<string>((_resolve, reject) => {
              context.signal.addEventListener('abort', () => {
                reject(context.signal.reason);
              });
            });
          },
        },
      ],
      { scheduler: clock.scheduler, deadline: 250 },
    );
    const outcome = send('x').then(
      () => undefined,
      (error: unknown) => error,
    );
    await clock.advanceByAsync(250);
    const error = await outcome;
    expect(isFailoverError(error)).toBe(true);
    expect((error as { reason: string }).reason).toBe('deadline');
    const reason: unknown = seen[0]?.signal.reason;
    expect(isDeadlineExceededError(reason)).toBe(true);
    expect(isAttemptTimeoutError(reason)).toBe(false);
    expect(reason).toMatchObject({ name: 'DeadlineExceededError', deadline: 250, attempts: 1 });
    expect((error as Error).message).toMatch(
      /silent: cut \(the call's deadline of 250 ms was reached after 1 attempts\)/,
    );
  });

  it('is permanent for the default classifier: a reached deadline means stop', () => {
    const verdict = classify(new DeadlineExceededError(1000, 3));
    expect(verdict.kind).toBe('permanent');
    expect(verdict.reason).toMatch(/deadline/);
    expect(isDeadlineExceededError(new Error('x'))).toBe(false);
  });
});
