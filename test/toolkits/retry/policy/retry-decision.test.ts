import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantBackoff, exponentialBackoff, isBackoffPolicyError } from '../../../../src/index.js';
import { MAX_DELAY_MS } from '../../../../src/core/index.js';
import { decideRetry, HttpResponseError, type RetryPolicyOptions } from '../../../../src/toolkits/retry/index.js';
import { resolveRetryPolicy } from '../../../../src/toolkits/retry/policy/retry-options.js';
import { grpcError, systemError } from '../support.js';
import { BROKEN_DELAYS, brokenPolicy } from '../../../support/broken-policy.js';

const policy = (options: RetryPolicyOptions = {}) =>
  resolveRetryPolicy({ random: () => 0.5, backoff: constantBackoff(1000), ...options });

function decide(
  error: unknown,
  options: RetryPolicyOptions = {},
  state: { attempt?: number; deadline?: number; now?: number; budgetAllows?: boolean } = {},
) {
  const p = policy(options);
  return decideRetry(
    error,
    p.classify(error),
    { attempt: state.attempt ?? 1, backoff: undefined, deadline: state.deadline ?? Infinity },
    p,
    {
      now: state.now ?? 0,
      budgetAllows: state.budgetAllows ?? true,
    },
  );
}

describe('decideRetry(): one row per rule, in the order they apply', () => {
  const reset = systemError('ECONNRESET');
  it.each([
    ['permanent first', new HttpResponseError({ status: 404, headers: {} }), {}, {}, { type: 'permanent' }],
    ['then idempotency', reset, { idempotency: 'never' }, {}, { type: 'give-up', reason: 'not-idempotent' }],
    [
      'then a pushback that says stop',
      grpcError(14, { 'grpc-retry-pushback-ms': '-5' }),
      {},
      { attempt: 99 },
      { type: 'give-up', reason: 'server-pushback' },
    ],
    [
      'then the attempt limit',
      reset,
      { maxAttempts: 2 },
      { attempt: 2, budgetAllows: false },
      { type: 'give-up', reason: 'attempts' },
    ],
    [
      'then the deadline',
      reset,
      {},
      { deadline: 10, now: 10, budgetAllows: false },
      { type: 'give-up', reason: 'deadline' },
    ],
    ['then the budget', reset, {}, { budgetAllows: false }, { type: 'give-up', reason: 'throttled' }],
    ['then the wait', reset, {}, {}, { type: 'retry', delay: 1000, source: 'backoff' }],
    [
      'a wait that reaches the deadline gives up',
      reset,
      {},
      { deadline: 1000 },
      { type: 'give-up', reason: 'deadline' },
    ],
  ] as const)('%s', (_rule, error, options, state, expected) => {
    expect(decide(error, options as RetryPolicyOptions, state)).toMatchObject(expected);
  });
});

describe('properties: hostile server hints never produce a NaN, infinite, negative or past-deadline wait', () => {
  const anyText = fc.string({ unit: 'binary', maxLength: 48 });
  const hostile = fc.oneof(
    anyText,
    fc.stringMatching(/^-?\d{1,400}$/),
    fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x7fffffff', ' 5 ', '5\u0000', '١٢٣'),
  );
  const deadline = fc.oneof(fc.constant(Infinity), fc.double({ min: 0, max: 1e12, noNaN: true }));

  function checkWait(decision: ReturnType<typeof decide>, left: number): boolean {
    if (decision.type !== 'retry') return true;
    return (
      Number.isFinite(decision.delay) && decision.delay >= 0 && decision.delay <= MAX_DELAY_MS && decision.delay < left
    );
  }

  it('Retry-After from any header value', () => {
    fc.assert(
      fc.property(hostile, deadline, fc.double({ min: 0, max: 1e12, noNaN: true }), (value, dl, maxRetryAfter) => {
        const error = new HttpResponseError({ status: 503, headers: { 'retry-after': value } });
        return checkWait(decide(error, { maxRetryAfter }, { deadline: dl }), dl);
      }),
    );
  });

  it('grpc-retry-pushback-ms from any metadata value', () => {
    fc.assert(
      fc.property(hostile, deadline, (value, dl) => {
        const decision = decide(grpcError(14, { 'grpc-retry-pushback-ms': value }), {}, { deadline: dl });
        if (!/^\s*\d+\s*$/.test(value) && decision.type !== 'give-up') return false;
        return checkWait(decision, dl);
      }),
    );
  });

  it('any backoff settings and random draws', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: MAX_DELAY_MS, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 60 }),
        (initialDelay, multiplier, r, attempt) => {
          const p = resolveRetryPolicy({
            backoff: exponentialBackoff({ initialDelay, multiplier, maxDelay: Infinity }),
            random: () => r,
            maxAttempts: Infinity,
          });
          let backoff: ReturnType<typeof p.backoff.first> | undefined;
          for (let i = 1; i <= attempt; i++) {
            const d = decideRetry(
              systemError('ECONNRESET'),
              p.classify(systemError('ECONNRESET')),
              { attempt: i, backoff, deadline: Infinity },
              p,
              { now: 0, budgetAllows: true },
            );
            if (d.type !== 'retry' || !checkWait(d, Infinity)) return false;
            backoff = d.backoff;
          }
          return true;
        },
      ),
    );
  });
});

describe('decideRetry(): the one backoff step and hint rule', () => {
  it.each(BROKEN_DELAYS)(
    'a policy that %s stops the loop with a BackoffPolicyError, never a wait',
    (_label, delayOf) => {
      const broken = brokenPolicy(delayOf);
      const decision = decide(systemError('ECONNRESET'), { backoff: broken });
      expect(decision.type).toBe('policy-error');
      expect(decision.type === 'policy-error' && isBackoffPolicyError(decision.error)).toBe(true);
    },
  );

  it('a Retry-After of 1e30 s is cut to maxRetryAfter, and the detail says so', () => {
    const huge = new HttpResponseError({ status: 503, headers: { 'retry-after': `1${'0'.repeat(30)}` } });
    expect(decide(huge, { random: () => 0 })).toMatchObject({ type: 'retry', delay: 60_000, source: 'retry-after' });
    const beyond = decide(huge, {}, { deadline: 30_000 });
    expect(beyond).toMatchObject({ type: 'give-up', reason: 'retry-after-beyond-deadline' });
    expect(beyond.type === 'give-up' && beyond.detail).toMatch(/cut to maxRetryAfter/);
  });
});
