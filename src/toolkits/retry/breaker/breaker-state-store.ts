/**
 * The seam for sharing a circuit breaker's state between breakers — in one process (see
 * {@link memoryBreakerStore}) or across processes (a store over Redis keeps a local copy and
 * publishes changes). Only decisions are shared: a breaker opened until a time, or closed again.
 * @module
 */

/** A breaker decision that other breakers of the same name follow. */
export type SharedBreakerState =
  | { readonly state: 'closed' }
  | {
      readonly state: 'open';
      /**
       * When a probe may go through, in ms on the shared clock (the breakers' scheduler clock:
       * `Date.now()` by default); Infinity while isolated, or after the break policy failed, until reset.
       * A store that serializes it must keep Infinity (JSON turns it into null).
       */
      readonly until: number;
      /** How many times the breaker has opened since it last closed (drives the break-duration backoff). */
      readonly opens: number;
    };

/** Where breakers of the same name read and publish their shared state. Methods must not throw. */
export interface BreakerStateStore {
  /** The latest shared state, read when a breaker is created. */
  get(): SharedBreakerState | undefined;
  /** A breaker of this name opened or closed. */
  set(state: SharedBreakerState): void;
  /** Calls `listener` with every state set by any breaker sharing this store; returns the unsubscribe. */
  subscribe(listener: (state: SharedBreakerState) => void): () => void;
}

/**
 * A {@link BreakerStateStore} in memory: breakers created with the same store (say, one per worker of a
 * pool, or one per request handler) open and close together.
 *
 * @example
 * ```ts
 * import { circuitBreaker, memoryBreakerStore } from 'redialer/retry';
 *
 * const store = memoryBreakerStore();
 * const a = circuitBreaker({ name: 'mail', store });
 * const b = circuitBreaker({ name: 'mail', store }); // opens when `a` opens
 * ```
 */
export function memoryBreakerStore(): BreakerStateStore {
  let current: SharedBreakerState | undefined;
  const listeners = new Set<(state: SharedBreakerState) => void>();
  return {
    get: () => current,
    set(state) {
      current = state;
      for (const listener of [...listeners]) listener(state);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
