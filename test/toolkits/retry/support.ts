import type { VirtualClock } from '../../../src/testing/index.js';
import { type CircuitBreaker, type CircuitBreakerOptions, circuitBreaker } from '../../../src/toolkits/retry/index.js';

/** Lets pending promise callbacks run (no timer, no real time). */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

export type Settled<T> =
  | { status: 'pending' }
  | { status: 'fulfilled'; value: T; at: number }
  | { status: 'rejected'; error: unknown; at: number };

/** Tracks a promise's outcome and the virtual time at which it settled. */
export function track<T>(promise: Promise<T>, clock: VirtualClock): { readonly state: Settled<T> } {
  const box: { state: Settled<T> } = { state: { status: 'pending' } };
  promise.then(
    (value) => {
      box.state = { status: 'fulfilled', value, at: clock.now() };
    },
    (error: unknown) => {
      box.state = { status: 'rejected', error, at: clock.now() };
    },
  );
  return box;
}

/**
 * Runs the clock timer by timer until `promise` settles (or no timer is left), letting promise
 * callbacks run between timers; returns the outcome.
 */
export async function drive<T>(clock: VirtualClock, promise: Promise<T>, limit = 1000): Promise<Settled<T>> {
  const box = track(promise, clock);
  for (let i = 0; i < limit; i++) {
    await flush();
    if (box.state.status !== 'pending') return box.state;
    const next = clock.scheduler.actions[0];
    if (next === undefined) return box.state;
    clock.advanceTo(next.delay);
  }
  return box.state;
}

/** The error of a rejected outcome (fails the test otherwise). */
export function rejection(outcome: Settled<unknown>): unknown {
  if (outcome.status !== 'rejected') throw new Error(`expected a rejection, got ${outcome.status}`);
  return outcome.error;
}

/** A breaker on `clock` that opens at the first failure; `options` add the rest (name, breakDuration, store). */
export function oneFailureBreaker(clock: VirtualClock, options: CircuitBreakerOptions = {}): CircuitBreaker {
  return circuitBreaker({ consecutiveFailures: 1, scheduler: clock.scheduler, ...options });
}

/** A Node-style system error. */
export function systemError(code: string, message = code): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** A gRPC-style status error (the shape of @grpc/grpc-js's ServiceError). */
export function grpcError(
  code: number,
  metadata: Record<string, string | string[]> = {},
): Error & { code: number; details: string; metadata: unknown } {
  const map = new Map(Object.entries(metadata).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
  return Object.assign(new Error(`${String(code)} status`), {
    code,
    details: 'test',
    metadata: { get: (key: string) => map.get(key) ?? [] },
  });
}
