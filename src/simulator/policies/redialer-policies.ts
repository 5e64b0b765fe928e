/**
 * redialer's own policies as storm contestants: the gRPC default and the four jitter kinds of
 * `exponentialBackoff` with its defaults (1 s, ×2, 30 s cap).
 * @module
 */
import { exponentialBackoff, type JitterKind } from '../../backoff/exponential-backoff.js';
import { grpcBackoff } from '../../backoff/grpc-backoff.js';
import type { StormPolicy } from '../storm-policy.js';

/** redialer's default: `grpcBackoff()` (1 s, ×1.6, ±20 % of the un-jittered backoff, 120 s cap). */
export const redialerGrpcPolicy: StormPolicy = {
  name: 'redialer-grpc',
  description: 'redialer grpcBackoff(): 1 s, ×1.6, ±20 % jitter that does not compound, 120 s cap; immediate first attempt',
  forClient: () => ({ backoff: grpcBackoff() }),
};

function exponential(jitter: JitterKind): StormPolicy {
  return {
    name: jitter === 'none' ? 'no-jitter' : `${jitter}-jitter`,
    description: `redialer exponentialBackoff({ jitter: '${jitter}' }): 1 s, ×2, 30 s cap; immediate first attempt`,
    forClient: () => ({ backoff: exponentialBackoff({ jitter }) }),
  };
}

/** Full jitter: uniform(0, v). */
export const fullJitterPolicy = exponential('full');
/** Equal jitter: v/2 + uniform(0, v/2). */
export const equalJitterPolicy = exponential('equal');
/** Decorrelated jitter: min(cap, uniform(base, 3 × previous)). */
export const decorrelatedJitterPolicy = exponential('decorrelated');
/** Capped exponential backoff without jitter. */
export const noJitterPolicy = exponential('none');
