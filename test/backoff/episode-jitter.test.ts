/**
 * grpcBackoff's jitter modes: one factor per episode (the default) against a draw per wait (the
 * protocol page's `'independent'`), and the episode variants' bands.
 */
import { describe, expect, it } from 'vitest';
import { type Backoff, type GrpcJitterMode, grpcBackoff } from '../../src/index.js';
import { GRPC_JITTER_MODES } from '../../src/core/index.js';
import { seededRandom } from '../support/seeded-random.js';

function waits(mode: GrpcJitterMode, random: () => number, count = 16): number[] {
  const out: number[] = [];
  let b: Backoff = grpcBackoff({ jitterMode: mode }).first(random);
  for (let i = 0; i < count; i += 1) {
    out.push(b.delay);
    b = b.next(random);
  }
  return out;
}

const nominal = (i: number): number => Math.min(1000 * 1.6 ** i, 120_000);

describe('episode jitter (the default)', () => {
  it('draws once per episode: later draws do not move the waits', () => {
    const draws = [0.9, 0.1, 0.5, 0, 1, 0.3];
    let i = 0;
    const ws = waits('episode', () => draws[i++ % draws.length] ?? 0, 14);
    expect(i).toBe(1);
    ws.forEach((w, n) => {
      expect(w).toBeCloseTo(n === 0 ? 1000 : nominal(n) * 1.16, 6);
    });
  });

  it('is the default, and a fresh first() starts a new episode with a new draw', () => {
    const policy = grpcBackoff();
    const a = policy
      .first(() => 0)
      .next(() => 0)
      .next(() => 1);
    const b = policy
      .first(() => 1)
      .next(() => 1)
      .next(() => 0);
    expect(a.delay).toBeCloseTo(2560 * 0.8, 9);
    expect(b.delay).toBeCloseTo(2560 * 1.2, 9);
  });

  it('is immutable: the same step gives the same next step whatever is drawn', () => {
    const second = grpcBackoff()
      .first(() => 0.5)
      .next(() => 0.75);
    expect(second.next(() => 0).delay).toBeCloseTo(second.next(() => 1).delay, 9);
  });

  it.each([
    [0, 0.8],
    [0.5, 1],
    [1, 1.2],
  ])('with random pinned at %s gives the protocol table exactly (factor %s)', (r, factor) => {
    const episode = waits('episode', () => r);
    const independent = waits('independent', () => r);
    episode.forEach((w, n) => {
      expect(w).toBeCloseTo(n === 0 ? 1000 : nominal(n) * factor, 6);
      expect(w).toBeCloseTo(independent[n] ?? NaN, 6);
    });
  });

  it('keeps every wait of 2,000 episodes inside ±20 % and spreads each over the band', () => {
    const random = seededRandom(7);
    const all = Array.from({ length: 2000 }, () => waits('episode', random, 14));
    for (let n = 1; n < 14; n += 1) {
      const ratios = all.map((ws) => (ws[n] ?? NaN) / nominal(n));
      expect(Math.min(...ratios)).toBeGreaterThanOrEqual(0.8 - 1e-9);
      expect(Math.max(...ratios)).toBeLessThanOrEqual(1.2 + 1e-9);
      expect(Math.min(...ratios)).toBeLessThan(0.81);
      expect(Math.max(...ratios)).toBeGreaterThan(1.19);
      expect(Math.abs(ratios.reduce((a, b) => a + b, 0) / ratios.length - 1)).toBeLessThan(0.01);
    }
  });

  it('keeps clients that failed together apart: attempt start times spread wider than independent draws', () => {
    // Start of attempt k = sum of the first k - 1 waits. With a draw per wait the sum averages out
    // (relative spread shrinks); with one factor per episode it keeps the full ±20 %.
    const spread = (mode: GrpcJitterMode): number => {
      const random = seededRandom(11);
      const starts = Array.from({ length: 2000 }, () => waits(mode, random, 10).reduce((a, b) => a + b, 0));
      const mean = starts.reduce((a, b) => a + b, 0) / starts.length;
      const sd = Math.sqrt(starts.reduce((a, b) => a + (b - mean) ** 2, 0) / starts.length);
      return sd / mean;
    };
    expect(spread('episode')).toBeGreaterThan(0.1);
    expect(spread('independent')).toBeLessThan(0.07);
  });
});

describe('the other episode variants', () => {
  it('episode-log: log-uniform over [1 − jitter, 1 + jitter]', () => {
    expect(waits('episode-log', () => 0)[3]).toBeCloseTo(nominal(3) * 0.8, 6);
    expect(waits('episode-log', () => 1)[3]).toBeCloseTo(nominal(3) * 1.2, 6);
    expect(waits('episode-log', () => 0.5)[3]).toBeCloseTo(nominal(3) * Math.sqrt(0.8 * 1.2), 6);
  });

  it('episode-period: log-uniform over one multiplier period, wider than the band', () => {
    expect(waits('episode-period', () => 0)[3]).toBeCloseTo(nominal(3) / Math.sqrt(1.6), 6);
    expect(waits('episode-period', () => 1)[3]).toBeCloseTo(nominal(3) * Math.sqrt(1.6), 6);
    expect(waits('episode-period', () => 0.5)[3]).toBeCloseTo(nominal(3), 6);
  });

  it('lists every mode and rejects an unknown one by name', () => {
    expect(GRPC_JITTER_MODES).toEqual(['episode', 'episode-log', 'episode-period', 'independent']);
    expect(() => grpcBackoff({ jitterMode: 'waves' as GrpcJitterMode })).toThrow(/option "jitterMode" must be one of/);
  });
});

describe('grpcBackoff policies are values', () => {
  it('calls with the same parameters share one policy; each user of it still draws its own episode', () => {
    const a = grpcBackoff({ initialBackoff: 250, maxBackoff: 10_000 });
    expect(grpcBackoff({ initialBackoff: 250, maxBackoff: 10_000 })).toBe(a);
    expect(grpcBackoff({ initialBackoff: 250, maxBackoff: 10_000, multiplier: 1.6, jitter: 0.2 })).toBe(a);
    for (const other of [
      { initialBackoff: 251, maxBackoff: 10_000 },
      { initialBackoff: 250, maxBackoff: 10_001 },
      { initialBackoff: 250, maxBackoff: 10_000, jitter: 0.1 },
      { initialBackoff: 250, maxBackoff: 10_000, multiplier: 2 },
      { initialBackoff: 250, maxBackoff: 10_000, jitterMode: 'independent' as const },
    ])
      expect(grpcBackoff(other)).not.toBe(a);
    // Two clients on the one policy: the first wait is the initial backoff for both, and each draws
    // its own factor from its own random source at the first jittered wait.
    const low = a.first(() => 0).next(() => 0);
    const high = a.first(() => 1).next(() => 1);
    expect(a.first(() => 0).delay).toBe(250);
    expect(low.delay).toBeCloseTo(320, 9);
    expect(high.delay).toBeCloseTo(480, 9);
    expect(low.next(() => 1).delay).toBeCloseTo(512, 9);
    expect(high.next(() => 0).delay).toBeCloseTo(768, 9);
  });
});
