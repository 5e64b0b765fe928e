/** The most attempt starts (times in ms, ascending) that fall in any window of `windowMs` ms. */
export function busiestWindow(starts: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while ((starts[i] ?? 0) - (starts[j] ?? 0) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
