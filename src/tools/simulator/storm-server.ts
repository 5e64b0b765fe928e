/**
 * The server of a reconnect storm: up until the outage, down for its length, then back with a
 * handshake budget per second, optionally with admission control that hands refused clients a slot.
 * @module
 */
import { AdmissionGate } from '../../toolkits/server/herd-plan.js';

/** What the server does with one connection attempt. */
export type StormAttemptOutcome = 'accepted' | 'down' | 'refused';

/** Options of {@link StormServer}; times are on the simulation clock, in milliseconds. */
export interface StormServerOptions {
  /** When the server goes down (every open connection is lost then). */
  readonly downAt: number;
  /** When it comes back. */
  readonly upAt: number;
  /** Handshakes accepted per one-second window after `upAt`; further attempts in that window are refused. */
  readonly capacity: number;
  /**
   * Admission control after the return (`redialer/server`'s `admission()`): a refused attempt is
   * answered with its own retry slot, and slots handed out are kept free for their holders.
   * @defaultValue false
   */
  readonly admission?: boolean;
}

/** The server's answer to one attempt; `retryAfter` (ms) when admission control refused it. */
export interface StormDecision {
  readonly admission: StormAttemptOutcome;
  readonly retryAfter?: number;
}

/**
 * The server's admission rule. Before `downAt` it accepts everything (the clients' first
 * connections); in [downAt, upAt) it refuses everything (`down`); from `upAt` on it accepts the first
 * `capacity` attempts of each window [upAt + k s, upAt + (k + 1) s) and refuses the rest (`refused`,
 * counted as wasted). With `admission`, windows and slots come from an admission gate (`src/toolkits/server/herd-plan.ts`).
 */
export class StormServer {
  #window = -1;
  #acceptedInWindow = 0;
  readonly #gate: AdmissionGate | undefined;

  constructor(readonly options: StormServerOptions) {
    this.#gate = options.admission === true ? new AdmissionGate(options.capacity) : undefined;
  }

  /** Decides an attempt that reaches the server at `now`. */
  admit(now: number): StormAttemptOutcome {
    return this.decide(now).admission;
  }

  /** Decides an attempt that reaches the server at `now`, with the retry slot of a refusal if any. */
  decide(now: number): StormDecision {
    const { downAt, upAt, capacity } = this.options;
    if (now < downAt) return ACCEPTED;
    if (now < upAt) return DOWN;
    if (this.#gate !== undefined) {
      const verdict = this.#gate.admit(now - upAt);
      return verdict.admitted ? ACCEPTED : { admission: 'refused', retryAfter: verdict.retryAfter };
    }
    const window = Math.floor((now - upAt) / 1000);
    if (window !== this.#window) {
      this.#window = window;
      this.#acceptedInWindow = 0;
    }
    if (this.#acceptedInWindow >= capacity) return REFUSED;
    this.#acceptedInWindow += 1;
    return ACCEPTED;
  }
}

const ACCEPTED: StormDecision = Object.freeze({ admission: 'accepted' });
const DOWN: StormDecision = Object.freeze({ admission: 'down' });
const REFUSED: StormDecision = Object.freeze({ admission: 'refused' });
