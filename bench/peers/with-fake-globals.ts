/**
 * Runs a peer's real code with `Math.random` replaced by a seeded source and with timers that only
 * record their delay, so that its backoff can be read step by step on the simulation clock.
 */
import type { RandomSource } from '../../src/backoff/backoff.js';

/** The delays passed to `setTimeout` while `fn` ran. */
export function withFakeGlobals<T>(
  random: RandomSource,
  fn: () => T,
): { readonly value: T; readonly timers: number[] } {
  const timers: number[] = [];
  const saved = { random: Math.random, setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const handle = {
    ref: () => handle,
    unref: () => handle,
    hasRef: () => false,
    refresh: () => handle,
    [Symbol.toPrimitive]: () => 0,
  };
  Math.random = random;
  globalThis.setTimeout = ((_: unknown, delay?: number) => {
    timers.push(delay ?? 0);
    return handle;
  }) as unknown as typeof setTimeout;
  globalThis.clearTimeout = () => undefined;
  try {
    return { value: fn(), timers };
  } finally {
    Math.random = saved.random;
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
  }
}
