/**
 * Hostile ConnectionManager options: every bad value gets a clear TypeError/RangeError naming the
 * option, never a silent default; a random source returning garbage stops the manager cleanly.
 */
import fc from 'fast-check';
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../src/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { anything, expectCleanOutcome } from '../support/hostile-input.js';

describe('hostile options', () => {
  it('ConnectionManager options: construct or throw a named TypeError/RangeError', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            minConnectTimeout: anything,
            minUptime: anything,
            autoReconnect: anything,
            random: anything,
            trace: anything,
            unref: anything,
            attemptSpacing: fc.oneof(
              anything,
              fc.record({ burst: anything, interval: anything }, { requiredKeys: [] }),
            ),
            onUnhandledError: anything,
          },
          { requiredKeys: [] },
        ),
        (options) => {
          expectCleanOutcome(() => {
            new ConnectionManager({ connector: () => NEVER, ...(options as object) }).shutdown();
          });
        },
      ),
      { numRuns: 1000 },
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
