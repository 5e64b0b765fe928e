/**
 * Event counts over a sliding time window, kept in a ring of buckets and read lazily from the clock:
 * no timer runs, so a window never holds a process open and never needs disposing.
 * @module
 */
import { checkNumber } from '../../../internal/validate.js';

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
    const now = this.now();
    const slot = Math.floor(now / this.#bucketMs);
    const start = slot * this.#bucketMs;
    const size = this.#buckets.length;
    const index = ((slot % size) + size) % size;
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
    const oldest = this.now() - this.window;
    let total = 0;
    for (const bucket of this.#buckets) {
      // A bucket counts while any part of it lies inside the window.
      if (bucket.start + this.#bucketMs > oldest) total += bucket.counts.get(key) ?? 0;
    }
    return total;
  }
}
