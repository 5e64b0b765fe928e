/** Hostile option objects: every bad value gets a clear TypeError/RangeError, never a silent default. */
import fc from 'fast-check';
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, MAX_DELAY_MS, exponentialBackoff, grpcBackoff } from '../../src/index.js';
import { createVirtualClock } from '../../src/testing/index.js';

const anything = fc.oneof(
  fc.anything(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, -1, 2 ** 31, 1e308, Number.MIN_VALUE, '', '10', null, true),
  fc.double(),
);

/** Accepts a construction that either succeeds or fails with a message naming the option. */
function expectCleanOutcome(make: () => unknown): void {
  try {
    make();
  } catch (error) {
    expect(error).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    expect((error as Error).message).toMatch(/^redialer: /);
  }
}

describe('hostile options', () => {
  it('ConnectionManager options: construct or throw a named TypeError/RangeError', () => {
    fc.assert(
      fc.property(
        fc.record(
          { minConnectTimeout: anything, minUptime: anything, autoReconnect: anything, random: anything, trace: anything, unref: anything },
          { requiredKeys: [] },
        ),
        (options) => {
          expectCleanOutcome(() => { new ConnectionManager({ connector: () => NEVER, ...(options as object) }).shutdown(); });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('policy options: construct or throw; when constructed, 1,000 waits are finite and in range', () => {
    fc.assert(
      fc.property(
        fc.record({ initialBackoff: anything, multiplier: anything, jitter: anything, maxBackoff: anything }, { requiredKeys: [] }),
        fc.record({ initialDelay: anything, multiplier: anything, maxDelay: anything, jitter: anything }, { requiredKeys: [] }),
        (g, e) => {
          for (const make of [() => grpcBackoff(g as never), () => exponentialBackoff(e as never)]) {
            let policy;
            try {
              policy = make();
            } catch {
              expectCleanOutcome(make);
              continue;
            }
            let b = policy.first(Math.random);
            for (let i = 0; i < 1000; i += 1) {
              expect(Number.isFinite(b.delay) && b.delay >= 0 && b.delay <= MAX_DELAY_MS).toBe(true);
              b = b.next(Math.random);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a random source returning garbage stops the manager with policy-error instead of waiting NaN', () => {
    fc.assert(
      fc.property(fc.constantFrom(NaN, -1, 2, Infinity, undefined, '0.5'), (value) => {
        const clock = createVirtualClock();
        const manager = new ConnectionManager({
          connector: () => NEVER,
          scheduler: clock.scheduler,
          random: () => value as number,
          minConnectTimeout: 0,
        });
        manager.connect(); // attempt 1 uses no jitter
        clock.advanceBy(1000); // cut; attempt 2 draws jitter
        expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
        expect(String(manager.snapshot.lastError)).toMatch(/option "random" must return a number in \[0, 1\]/);
        expect(clock.pendingTimers()).toBe(0);
      }),
    );
  });
});
