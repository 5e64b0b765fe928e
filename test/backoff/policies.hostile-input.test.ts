/** Hostile backoff policy options: construct or throw a named error; a policy built waits finite, in-range times. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentialBackoff, grpcBackoff } from '../../src/index.js';
import { MAX_DELAY_MS } from '../../src/core/index.js';
import { anything, expectCleanOutcome } from '../support/hostile-input.js';

describe('hostile options', () => {
  it('policy options: construct or throw; when constructed, 1,000 waits are finite and in range', () => {
    fc.assert(
      fc.property(
        fc.record(
          { initialBackoff: anything, multiplier: anything, jitter: anything, maxBackoff: anything },
          { requiredKeys: [] },
        ),
        fc.record(
          { initialDelay: anything, multiplier: anything, maxDelay: anything, jitter: anything },
          { requiredKeys: [] },
        ),
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
});
