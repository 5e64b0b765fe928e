/**
 * Counts what happens in a storm: attempts per second by outcome, and when each client got back.
 * @module
 */
import type { StormAttemptOutcome } from './storm-server.js';

/** Raw counts of one storm run; times are milliseconds since the outage began. */
export class StormRecorder {
  /** Attempts per one-second bucket since the outage began. */
  readonly perSecond: number[] = [];
  readonly #reconnectedAt: number[] = [];
  readonly #attemptsByClient: Uint32Array;
  /** Attempts since the outage began. */
  attempts = 0;
  /** Attempts that found the server down. */
  down = 0;
  /** Attempts refused over the handshake budget (wasted). */
  refused = 0;
  /** Attempts that were accepted. */
  accepted = 0;

  constructor(
    /** Number of clients. */
    readonly clients: number,
    /** Simulation time at which the outage began; times are recorded relative to it. */
    readonly origin: number,
  ) {
    this.#attemptsByClient = new Uint32Array(clients);
  }

  /** Records an attempt by `client` at `now` (simulation time) and its outcome. */
  attempt(client: number, now: number, outcome: StormAttemptOutcome): void {
    const second = Math.floor((now - this.origin) / 1000);
    if (second < 0) return;
    this.attempts += 1;
    this.#attemptsByClient[client] = (this.#attemptsByClient[client] ?? 0) + 1;
    while (this.perSecond.length <= second) this.perSecond.push(0);
    this.perSecond[second] = (this.perSecond[second] ?? 0) + 1;
    if (outcome === 'down') this.down += 1;
    else if (outcome === 'refused') this.refused += 1;
    else {
      this.accepted += 1;
      this.#reconnectedAt.push(now - this.origin);
    }
  }

  /** How many clients have reconnected since the outage began. */
  get reconnected(): number {
    return this.#reconnectedAt.length;
  }

  /** Reconnection times since the outage began, ascending. */
  reconnectTimes(): number[] {
    return [...this.#reconnectedAt].sort((a, b) => a - b);
  }

  /** Attempts made by each client since the outage began. */
  attemptsByClient(): Uint32Array {
    return this.#attemptsByClient;
  }
}
