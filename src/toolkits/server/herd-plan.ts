/**
 * The pure part of server-side herd control: how long to tell each client to wait so that N clients
 * come back at no more than C per second. No I/O and no Node imports, so the simulator shares it.
 * @module
 */
import type { RandomSource } from '../../backoff/backoff.js';
import { checkNumber } from '../../internal/validate.js';

/**
 * The retry hint for one client of an announced downtime: `expectedDowntime + U(0, 1.1 × N / C)`
 * seconds as milliseconds. Drawn per client, the herd returns spread over 1.1 × N/C, at about
 * C / 1.1 per second: under the capacity with a margin for the randomness.
 *
 * @example
 * ```ts
 * drainHint({ expectedDowntime: 30_000, clients: 10_000, capacity: 1000 }, Math.random); // 30 000–41 000
 * ```
 */
export function drainHint(
  plan: { readonly expectedDowntime: number; readonly clients: number; readonly capacity: number },
  random: RandomSource,
): number {
  const window = (1.1 * 1000 * Math.max(1, plan.clients)) / plan.capacity;
  return plan.expectedDowntime + random() * window;
}

/** What an {@link AdmissionGate} says to one connection attempt. */
export type AdmissionVerdict =
  | { readonly admitted: true }
  /** Refused; `retryAfter` ms from now is this client's own slot. */
  | { readonly admitted: false; readonly retryAfter: number };

/**
 * Admission control by slots: at most `capacity` attempts are admitted in each one-second window,
 * and each refused attempt is handed its own slot, the next free one, slots being 1/capacity s apart
 * from the next window on, so that the refused herd comes back at the capacity's pace instead of all
 * at once. Slots handed out are kept free for their holders: an attempt is admitted only if the
 * window still has room beside the slots that fall later in it. Times are milliseconds on any
 * monotonic clock.
 */
export class AdmissionGate {
  /** Attempts admitted per one-second window. */
  readonly capacity: number;
  #window = -Infinity;
  #admitted = 0;
  #nextSlot = -Infinity;
  /** Slot times handed out, ascending; `#head` is the first one not yet past. */
  readonly #slots: number[] = [];
  #head = 0;

  constructor(capacity: number) {
    this.capacity = checkNumber('capacity', capacity, { min: 1, max: 1e9, integer: true });
  }

  /** Slots handed out that are still ahead (at or after `now`). */
  get queued(): number {
    return this.#slots.length - this.#head;
  }

  /** Decides an attempt that arrives at `now`. */
  admit(now: number): AdmissionVerdict {
    const window = Math.floor(now / 1000);
    if (window !== this.#window) {
      this.#window = window;
      this.#admitted = 0;
    }
    this.#forget(now);
    const windowEnd = (window + 1) * 1000;
    // Slots strictly after now and before the window's end are promised to their holders.
    let promised = 0;
    for (let i = this.#head; i < this.#slots.length && (this.#slots[i] ?? Infinity) < windowEnd; i += 1) {
      if ((this.#slots[i] ?? 0) > now) promised += 1;
    }
    if (this.#admitted + promised < this.capacity) {
      this.#admitted += 1;
      return { admitted: true };
    }
    const slot = Math.max(this.#nextSlot, windowEnd);
    this.#nextSlot = slot + 1000 / this.capacity;
    this.#slots.push(slot);
    return { admitted: false, retryAfter: slot - now };
  }

  #forget(now: number): void {
    while (this.#head < this.#slots.length && (this.#slots[this.#head] ?? Infinity) <= now) this.#head += 1;
    if (this.#head > 4096 && this.#head * 2 > this.#slots.length) {
      this.#slots.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
