/**
 * Backoff policies that break, for the one rule every component follows: a policy that throws or
 * gives no finite delay stops the retrying with a BackoffPolicyError, never a 0 ms wait.
 */
import type { BackoffPolicy } from '../../src/index.js';

/** A policy whose every step's delay is read from `delayOf()` (so it may throw, or be anything). */
export function brokenPolicy(delayOf: () => unknown): BackoffPolicy {
  return {
    first: () => ({
      get delay() {
        return delayOf() as number;
      },
      next() {
        return this;
      },
    }),
  };
}

/** How a policy breaks, one row each: its label and the delay it gives. */
export const BROKEN_DELAYS: readonly (readonly [label: string, delayOf: () => unknown])[] = [
  [
    'throws',
    () => {
      throw new Error('bad policy');
    },
  ],
  ['returns NaN', () => NaN],
  ['returns Infinity', () => Infinity],
  ['returns a string', () => '10'],
];
