/**
 * Waiting in a bench: for a while, or until a condition holds, polled, with a limit so that a bench
 * whose subject never gets there fails with what it waited for instead of hanging.
 * @module
 */

/** Resolves after `ms` of real time. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** Resolves once `check()` is true (polled every 5 ms); rejects after `limitMs`, naming `what`. */
export async function until(check: () => boolean, limitMs: number, what: string): Promise<void> {
  const end = performance.now() + limitMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out after ${String(limitMs)} ms waiting for ${what}`);
    await sleep(5);
  }
}
