/**
 * What a reconnect-storm simulation compares: how one client waits between attempts.
 * @module
 */
import type { BackoffPolicy, RandomSource } from '../../backoff/backoff.js';

/**
 * How a library other than redialer reconnects, by its own rules. A client with rules is driven by
 * a small loop that follows them; a client without is a real redialer `ConnectionManager`.
 */
export interface PeerRules {
  /**
   * Where each wait runs from. `'attempt-start'` (gRPC): a lost connection is redialled at once and
   * each later attempt starts at the later of (start of the failed attempt + wait) and its failure.
   * `'failure'` (the WebSocket and SignalR clients): the loss counts as a failure, so the first step
   * of the backoff is the wait before the first attempt, and each later wait runs from a failure.
   */
  readonly measuredFrom: 'attempt-start' | 'failure';
  /**
   * How long an unanswered attempt lasts before the client gives it up, ms: the library's own
   * connect timeout, or the operating system's when the library has none.
   */
  readonly connectTimeout: number;
}

/** How one simulated client reconnects after it lost a long-lived connection. */
export interface ClientReconnect {
  /**
   * The waits between attempts. Without `rules` (a redialer client) they run from the start of one
   * attempt to the start of the next, as the ConnectionManager measures them.
   */
  readonly backoff: BackoffPolicy;
  /** A peer library's own rules; absent for redialer clients, which run a real ConnectionManager. */
  readonly rules?: PeerRules;
  /** redialer clients: the manager's `reconnectSpread` option. @defaultValue 0 */
  readonly reconnectSpread?: number;
  /** redialer clients: the manager's `serverHints` option. @defaultValue 'at-least' */
  readonly serverHints?: 'at-least' | 'exact';
}

/**
 * A named reconnect behaviour. `forClient` runs once per simulated client, so a policy can draw
 * per-client constants (reconnecting-websocket draws its first delay once per page load); `forRun`,
 * if present, runs once per simulation first and returns the per-client factory, for constants that
 * a whole process shares (the same library loaded once for every client).
 *
 * @example
 * ```ts
 * const everySecond: StormPolicy = {
 *   name: 'constant-1s',
 *   description: 'a wait of 1 s',
 *   forClient: () => ({ backoff: constantBackoff(1000) }),
 * };
 * ```
 */
export interface StormPolicy {
  /** Short name, used in tables, plots and on the command line. */
  readonly name: string;
  /** One line on what the policy is and where its numbers come from. */
  readonly description: string;
  /** The reconnect behaviour of one client. */
  forClient(random: RandomSource): ClientReconnect;
  /** Draws what the run's clients share, then returns their factory (instead of `forClient`). */
  forRun?(random: RandomSource): (random: RandomSource) => ClientReconnect;
}
