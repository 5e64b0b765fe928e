/** Least-squares slope of ln(y) against ln(x): the exponent k of y ~ x^k. */
export function logLogSlope(xs: readonly number[], ys: readonly number[]): number {
  const lx = xs.map(Math.log);
  const ly = ys.map(Math.log);
  const n = lx.length;
  const mx = lx.reduce((a, b) => a + b, 0) / n;
  const my = ly.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}

/** Share of `bucket`-ms slots between the first and the last time that hold no time at all. */
export function idleShare(times: readonly number[], bucket: number): number {
  if (times.length < 2) return 0;
  const first = Math.min(...times);
  const last = Math.max(...times);
  const slots = Math.max(1, Math.ceil((last - first) / bucket));
  const used = new Set(times.map((t) => Math.min(slots - 1, Math.floor((t - first) / bucket))));
  return 1 - used.size / slots;
}
