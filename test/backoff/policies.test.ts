/**
 * Backoff policies as values: exact formulas at pinned random values, and fast-check properties for
 * the bounds of every policy over 10,000 consecutive failures.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Backoff, type BackoffPolicy, constantBackoff, exponentialBackoff, grpcBackoff } from '../../src/index.js';
import { JITTER_KINDS, MAX_DELAY_MS } from '../../src/core/index.js';

function delays(policy: BackoffPolicy, count: number, random: () => number): number[] {
  const out: number[] = [];
  let b: Backoff = policy.first(random);
  out.push(b.delay);
  for (let i = 1; i < count; i += 1) {
    b = b.next(random);
    out.push(b.delay);
  }
  return out;
}

/** A fast-check random stream: an array of draws in [0, 1] replayed cyclically. */
const draws = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 });
const cyclic = (values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
};

describe('grpcBackoff', () => {
  it('is immutable: next() returns a new value and leaves the old one as it was', () => {
    const first = grpcBackoff().first(() => 0.5);
    const second = first.next(() => 0.5);
    expect(first.delay).toBe(1000);
    expect(second.delay).toBe(1600);
    expect(first.next(() => 0.5).delay).toBe(1600);
  });

  it('does not compound jitter: the un-jittered base grows by exactly x1.6 whatever was drawn', () => {
    // grpc-js multiplies the jittered delay again; here wait 3 stays within 2048-3072 ms even after a
    // high draw for wait 2.
    const b2 = grpcBackoff({ jitterMode: 'independent' })
      .first(() => 1)
      .next(() => 1);
    expect(b2.delay).toBeCloseTo(1920, 9);
    expect(b2.next(() => 0).delay).toBeCloseTo(2048, 9);
    expect(b2.next(() => 1).delay).toBeCloseTo(3072, 9);
  });

  it('keeps spreading at the cap: 96-144 s', () => {
    const atCap = (r: number) => delays(grpcBackoff(), 30, () => r).at(-1);
    expect(atCap(0)).toBeCloseTo(96_000, 6);
    expect(atCap(1)).toBeCloseTo(144_000, 6);
  });

  it('honours a value of 0 (no truthiness defaults)', () => {
    expect(delays(grpcBackoff({ jitter: 0, initialBackoff: 0 }), 3, () => 1)).toEqual([0, 0, 0]);
  });

  it('stays within [0.8, 1.2] x min(1.6^(n-1) s, 120 s) and within timer range for 10,000 failures', () => {
    fc.assert(
      fc.property(draws, (values) => {
        const ds = delays(grpcBackoff(), 10_000, cyclic(values));
        return ds.every((d, i) => {
          const base = Math.min(1000 * 1.6 ** i, 120_000);
          const ok = i === 0 ? d === 1000 : d >= base * 0.8 - 1e-6 && d <= base * 1.2 + 1e-6;
          return ok && Number.isFinite(d);
        });
      }),
      { numRuns: 30 },
    );
  });
});

describe('exponentialBackoff', () => {
  it.each([
    ['none', 0.3, [100, 200, 400, 800, 1000, 1000]],
    ['full', 0.5, [50, 100, 200, 400, 500, 500]],
    ['equal', 0.5, [75, 150, 300, 600, 750, 750]],
  ] as const)("%s jitter follows Brooker's formula (random = %s)", (jitter, r, expected) => {
    const policy = exponentialBackoff({ initialDelay: 100, maxDelay: 1000, jitter });
    expect(delays(policy, 6, () => r)).toEqual(expected);
  });

  it('decorrelated jitter: sleep = min(cap, uniform(base, 3 x sleep)), starting from base', () => {
    const policy = exponentialBackoff({ initialDelay: 100, maxDelay: 1000, jitter: 'decorrelated' });
    expect(delays(policy, 4, () => 1)).toEqual([300, 900, 1000, 1000]);
    expect(delays(policy, 3, () => 0)).toEqual([100, 100, 100]);
  });

  it.each(JITTER_KINDS)('%s: every delay is finite, in [0, cap] and never overflows, for 10,000 failures', (jitter) => {
    fc.assert(
      fc.property(
        draws,
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: undefined }),
        (values, initialDelay, multiplier, extra) => {
          const maxDelay = extra === undefined ? Infinity : initialDelay + extra;
          const ds = delays(exponentialBackoff({ initialDelay, multiplier, maxDelay, jitter }), 10_000, cyclic(values));
          const cap = Math.min(maxDelay, MAX_DELAY_MS);
          return ds.every((d) => Number.isFinite(d) && d >= 0 && d <= cap);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('gRPC policy with extreme options never yields NaN, Infinity or a negative wait', () => {
    fc.assert(
      fc.property(
        draws,
        fc.double({ min: 0, max: MAX_DELAY_MS, noNaN: true }),
        fc.double({ min: 1, max: 1e300, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, initialBackoff, multiplier, jitter) => {
          const ds = delays(
            grpcBackoff({ initialBackoff, multiplier, jitter, maxBackoff: Infinity }),
            10_000,
            cyclic(values),
          );
          return ds.every((d) => Number.isFinite(d) && d >= 0 && d <= MAX_DELAY_MS);
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('constantBackoff', () => {
  it('waits the same every time', () => {
    expect(delays(constantBackoff(250), 4, Math.random)).toEqual([250, 250, 250, 250]);
  });
});

describe('a hand-written policy', () => {
  it('fits in a few lines and drives a manager like the built-in ones', () => {
    const linear = (step: number): BackoffPolicy => {
      const at = (n: number): Backoff => ({ delay: n * step, next: () => at(n + 1) });
      return { first: () => at(1) };
    };
    expect(delays(linear(100), 4, Math.random)).toEqual([100, 200, 300, 400]);
  });
});

describe('random source validation', () => {
  it.each([NaN, -0.1, 1.5, Infinity])('a random source returning %s is rejected with a RangeError naming it', (r) => {
    expect(() =>
      grpcBackoff()
        .first(() => r)
        .next(() => r),
    ).toThrow(/option "random" must return a number in \[0, 1\]/);
  });
});
