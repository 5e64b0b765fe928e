/**
 * The server of a reconnect storm: up until the outage, down for its length, then back with a
 * handshake budget per second.
 * @module
 */

/** What the server does with one connection attempt. */
export type Admission = 'accepted' | 'down' | 'refused';

/** Options of {@link StormServer}; times are on the simulation clock, in milliseconds. */
export interface StormServerOptions {
  /** When the server goes down (every open connection is lost then). */
  readonly downAt: number;
  /** When it comes back. */
  readonly upAt: number;
  /** Handshakes accepted per one-second window after `upAt`; further attempts in that window are refused. */
  readonly capacity: number;
}

/**
 * The server's admission rule. Before `downAt` it accepts everything (the clients' first
 * connections); in [downAt, upAt) it refuses everything (`down`); from `upAt` on it accepts the first
 * `capacity` attempts of each window [upAt + k s, upAt + (k + 1) s) and refuses the rest (`refused`,
 * counted as wasted).
 */
export class StormServer {
  #window = -1;
  #acceptedInWindow = 0;

  constructor(readonly options: StormServerOptions) {}

  /** Decides an attempt that reaches the server at `now`. */
  admit(now: number): Admission {
    const { downAt, upAt, capacity } = this.options;
    if (now < downAt) return 'accepted';
    if (now < upAt) return 'down';
    const window = Math.floor((now - upAt) / 1000);
    if (window !== this.#window) {
      this.#window = window;
      this.#acceptedInWindow = 0;
    }
    if (this.#acceptedInWindow >= capacity) return 'refused';
    this.#acceptedInWindow += 1;
    return 'accepted';
  }
}
