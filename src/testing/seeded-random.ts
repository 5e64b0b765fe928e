/**
 * A seeded random source, so that every simulation can be replayed exactly.
 * @module
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomSource } from '../backoff/backoff.js';
import { checkNumber } from '../internal/validate.js';

/**
 * A reproducible random source in [0, 1): pure-rand's xoroshiro128+ seeded with `seed`.
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * random(); // the same number on every run
 * ```
 */
export function seededRandom(seed: number): RandomSource {
  checkNumber('seed', seed, { integer: true, min: -(2 ** 31), max: 2 ** 31 - 1 });
  const rng = xoroshiro128plus(seed);
  return () => uniformFloat64(rng);
}
