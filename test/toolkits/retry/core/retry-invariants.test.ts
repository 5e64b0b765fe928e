import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialBackoff } from '../../../../src/index.js';
import { HttpResponseError, isRetryError, retry } from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { seededRandom } from '../../../support/seeded-random.js';
import { drive, grpcError, systemError } from '../support.js';

/** One scripted attempt outcome. */
const outcome = fc.oneof(
  fc.constant<unknown>('ok'),
  fc.constant<unknown>('hang'),
  fc.constantFrom('ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND').map((code) => systemError(code)),
  fc
    .record({
      status: fc.constantFrom(429, 500, 503, 404),
      retryAfter: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    })
    .map(
      ({ status, retryAfter }) =>
        new HttpResponseError({ status, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter } }),
    ),
  fc
    .record({
      code: fc.constantFrom(4, 8, 14, 7),
      pushback: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    })
    .map(({ code, pushback }) => grpcError(code, pushback === undefined ? {} : { 'grpc-retry-pushback-ms': pushback })),
);

describe('retry() invariants on virtual time, over random scripts, hints and limits', () => {
  it('never exceeds maxAttempts or totalTimeout, settles, and leaves no timer behind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(outcome, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 120_000 }),
        fc.option(fc.integer({ min: 1, max: 30_000 }), { nil: undefined }),
        fc.constantFrom('idempotent', 'conditional', 'never'),
        fc.integer(),
        async (script, maxAttempts, totalTimeout, attemptTimeout, idempotency, seed) => {
          const clock = createVirtualClock();
          let calls = 0;
          const promise = retry(
            () => {
              const next = script[Math.min(calls, script.length - 1)];
              calls++;
              if (next === 'hang') return new Promise<never>(() => undefined);
              return next === 'ok' ? Promise.resolve('ok') : Promise.reject(next);
            },
            {
              scheduler: clock.scheduler,
              random: seededRandom(seed),
              backoff: exponentialBackoff({ initialDelay: 100, maxDelay: 10_000 }),
              maxAttempts,
              totalTimeout,
              idempotency,
              ...(attemptTimeout === undefined ? {} : { attemptTimeout }),
            },
          );
          const settled = await drive(clock, promise);
          expect(settled.status).not.toBe('pending');
          expect(calls).toBeLessThanOrEqual(maxAttempts);
          expect(clock.now()).toBeLessThanOrEqual(totalTimeout);
          expect(clock.pendingTimers()).toBe(0);
          if (settled.status === 'rejected' && isRetryError(settled.error)) {
            expect(settled.error.attempts).toBe(calls);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
