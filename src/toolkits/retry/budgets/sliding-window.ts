/**
 * Event counts over a sliding time window, kept in a ring of buckets and read lazily from the clock:
 * no timer runs, so a window never holds a process open and never needs disposing.
 * @module
 */
import { checkNumber } from '../../../internal/validate.js';

/**
 * Where time `now` falls in a ring of `size` buckets of `bucketMs` each, aligned to the clock: the
 * bucket's index in the ring and its start. A bucket whose stored start differs holds an older turn of
 * the ring and is emptied before use. Shared by every windowed count (this class, the breaker's
 * failure-ratio rule), so that they agree on what "the last window" holds.
 */
export function bucketAt(
  now: number,
  bucketMs: number,
  size: number,
): { readonly index: number; readonly start: number } {
  const slot = Math.floor(now / bucketMs);
  return { index: ((slot % size) + size) % size, start: slot * bucketMs };
}

/** Whether a bucket that starts at `start` counts in the window of `windowMs` that ends at `now`: while any part of it lies inside. */
export function bucketInWindow(start: number, bucketMs: number, windowMs: number, now: number): boolean {
  return start + bucketMs > now - windowMs;
}

/** Counts of named events over the last `window` milliseconds (to the resolution of one bucket). */
export class SlidingWindow<K extends string> {
  readonly #bucketMs: number;
  readonly #buckets: { start: number; counts: Map<K, number> }[];

  constructor(
    /** The window length in milliseconds. */
    readonly window: number,
    private readonly now: () => number,
    buckets = 10,
  ) {
    checkNumber('window', window, { min: 1 });
    this.#bucketMs = window / buckets;
    this.#buckets = Array.from({ length: buckets }, () => ({ start: -Infinity, counts: new Map<K, number>() }));
  }

  /** Adds `n` events of kind `key` at the current time. */
  add(key: K, n = 1): void {
    const { index, start } = bucketAt(this.now(), this.#bucketMs, this.#buckets.length);
    const bucket = this.#buckets[index];
    if (bucket === undefined) return;
    if (bucket.start !== start) {
      bucket.start = start;
      bucket.counts.clear();
    }
    bucket.counts.set(key, (bucket.counts.get(key) ?? 0) + n);
  }

  /** The number of `key` events within the window. */
  count(key: K): number {
    const now = this.now();
    let total = 0;
    for (const bucket of this.#buckets) {
      if (bucketInWindow(bucket.start, this.#bucketMs, this.window, now)) total += bucket.counts.get(key) ?? 0;
    }
    return total;
  }
}
