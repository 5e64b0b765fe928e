/**
 * What a reconnect-storm simulation compares: how one client waits between attempts.
 * @module
 */
import type { BackoffPolicy, RandomSource } from '../backoff/backoff.js';

/** How one simulated client reconnects after it lost a long-lived connection. */
export interface ClientReconnect {
  /** The waits between attempts, measured from the start of one attempt to the start of the next. */
  readonly backoff: BackoffPolicy;
  /**
   * Wait between losing the connection and the first attempt. 0 (the gRPC rule) reconnects at once.
   * @defaultValue 0
   */
  readonly firstAttemptDelay?: number;
}

/**
 * A named reconnect behaviour. `forClient` runs once per simulated client, so a policy can draw
 * per-client constants (reconnecting-websocket draws its first delay once per page load).
 *
 * @example
 * ```ts
 * const everySecond: StormPolicy = { name: 'constant-1s', forClient: () => ({ backoff: constantBackoff(1000) }) };
 * ```
 */
export interface StormPolicy {
  /** Short name, used in tables, plots and on the command line. */
  readonly name: string;
  /** One line on what the policy is and where its numbers come from. */
  readonly description: string;
  /** The reconnect behaviour of one client. */
  forClient(random: RandomSource): ClientReconnect;
}
