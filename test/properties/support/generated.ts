/**
 * What the schedule properties generate for the client — backoff policies, manager options, random
 * sources — as plain records that print readably in a counterexample, with the functions that build
 * the real values from them; and the loop that runs a virtual clock until the component is quiet.
 * What the generated servers do is in servers.ts.
 */
import fc from 'fast-check';
import {
  type AttemptSpacing,
  type BackoffPolicy,
  type RandomSource,
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
} from '../../../src/index.js';
import { GRPC_JITTER_MODES, JITTER_KINDS } from '../../../src/core/index.js';
import type { VirtualClock } from '../../../src/testing/index.js';
import { seededRandom } from '../../support/seeded-random.js';

/** A backoff policy, described. */
export type PolicySpec =
  | {
      readonly kind: 'grpc';
      readonly initialBackoff: number;
      readonly maxBackoff: number;
      readonly multiplier: number;
      readonly jitter: number;
      readonly jitterMode: (typeof GRPC_JITTER_MODES)[number];
    }
  | {
      readonly kind: 'exponential';
      readonly initialDelay: number;
      readonly maxDelay: number;
      readonly multiplier: number;
      readonly jitter: (typeof JITTER_KINDS)[number];
    }
  | { readonly kind: 'constant'; readonly delay: number };

/** Builds the policy `spec` describes. */
export function policyOf(spec: PolicySpec): BackoffPolicy {
  switch (spec.kind) {
    case 'grpc':
      return grpcBackoff({
        initialBackoff: spec.initialBackoff,
        maxBackoff: spec.maxBackoff,
        multiplier: spec.multiplier,
        jitter: spec.jitter,
        jitterMode: spec.jitterMode,
      });
    case 'exponential':
      return exponentialBackoff({
        initialDelay: spec.initialDelay,
        maxDelay: spec.maxDelay,
        multiplier: spec.multiplier,
        jitter: spec.jitter,
      });
    case 'constant':
      return constantBackoff(spec.delay);
  }
}

/** Waits from 0 (the floor on attempt starts governs) through 5 s; caps up to 30 s. */
const initial = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 5000 }) },
);
const cap = (low: number) => fc.integer({ min: low, max: Math.max(low, 30_000) });
/** A first wait and a cap at or above it. */
const firstAndCap = initial.chain((first) => fc.tuple(fc.constant(first), cap(first)));
/** A growth factor: the policy's default, or any in [1, 3]. */
const factor = (usual: number) => fc.oneof(fc.constant(usual), fc.double({ min: 1, max: 3, noNaN: true }));

/** Any built-in policy: grpcBackoff (any initialBackoff, maxBackoff, jitter), exponentialBackoff, constantBackoff. */
export const policySpec: fc.Arbitrary<PolicySpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        firstAndCap,
        factor(1.6),
        fc.oneof(fc.constant(0.2), fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
        fc.constantFrom(...GRPC_JITTER_MODES),
      )
      .map(([[initialBackoff, maxBackoff], multiplier, jitter, jitterMode]): PolicySpec => ({
        kind: 'grpc',
        initialBackoff,
        maxBackoff,
        multiplier,
        jitter,
        jitterMode,
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(firstAndCap, factor(2), fc.constantFrom(...JITTER_KINDS))
      .map(([[initialDelay, maxDelay], multiplier, jitter]): PolicySpec => ({
        kind: 'exponential',
        initialDelay,
        maxDelay,
        multiplier,
        jitter,
      })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('constant' as const), delay: fc.integer({ min: 0, max: 5000 }) }),
  },
);

/** A random source, described: pinned (0 and 1 are the extremes of every jitter) or seeded. */
export type RandomSpec = { readonly pinned: number } | { readonly seed: number };

export const randomSpec: fc.Arbitrary<RandomSpec> = fc.oneof(
  fc.constantFrom(0, 0.5, 1).map((pinned) => ({ pinned })),
  fc.integer().map((seed) => ({ seed })),
);

/** Builds the random source `spec` describes. */
export function randomOf(spec: RandomSpec): RandomSource {
  if ('pinned' in spec) return () => spec.pinned;
  return seededRandom(spec.seed);
}

/** The manager options the schedule depends on. */
export interface ManagerSpec {
  readonly minUptime: number;
  readonly reconnectSpread: number;
  readonly attemptSpacing: Partial<AttemptSpacing> | undefined;
  readonly minConnectTimeout: number;
}

export const managerSpec: fc.Arbitrary<ManagerSpec> = fc.record({
  minUptime: fc.oneof(fc.constant(5000), fc.constant(0), fc.integer({ min: 0, max: 10_000 })),
  reconnectSpread: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })),
  attemptSpacing: fc.option(
    fc.oneof(
      fc.constant({ interval: 0 }),
      fc.record({ burst: fc.integer({ min: 1, max: 10 }), interval: fc.integer({ min: 1, max: 500 }) }),
    ),
    { nil: undefined },
  ),
  minConnectTimeout: fc.oneof(fc.constant(20_000), fc.integer({ min: 50, max: 5000 })),
});

/**
 * Runs `clock` timer by timer until `done()`, or until nothing is due within `quiet` ms (it then
 * advances that far and stops: a wait longer than the schedule allows shows as a trailing gap).
 */
export function runUntilQuiet(clock: VirtualClock, quiet: number, done: () => boolean): void {
  for (let fired = 0; fired < 100_000; fired++) {
    if (done()) return;
    const next = clock.scheduler.actions[0];
    if (next === undefined || next.delay > clock.now() + quiet) {
      clock.advanceBy(quiet);
      return;
    }
    clock.advanceTo(next.delay);
  }
  throw new Error('runUntilQuiet: over 100000 timers');
}

/** Attempts a run records at most: enough to reach any generated cap, few enough to stay fast. */
export const MAX_ATTEMPTS = 40;
