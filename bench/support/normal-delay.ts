/** |Normal(mean, sd)| draws from a uniform source (Box–Muller), like the AWS model's `abs(random.normalvariate(10, 2))`. */
import type { RandomSource } from '../../src/backoff/backoff.js';

export function absNormal(random: RandomSource, mean: number, sd: number): () => number {
  let spare: number | undefined;
  return () => {
    let z: number;
    if (spare !== undefined) {
      z = spare;
      spare = undefined;
    } else {
      const u = 1 - random(); // (0, 1]: log stays finite
      const v = random();
      const r = Math.sqrt(-2 * Math.log(u));
      z = r * Math.cos(2 * Math.PI * v);
      spare = r * Math.sin(2 * Math.PI * v);
    }
    return Math.abs(mean + sd * z);
  };
}
