/**
 * redialer's own policies as storm contestants: the gRPC default and its jitter modes, the opt-in
 * reconnect spread, and the four jitter kinds of `exponentialBackoff` with its defaults (1 s, ×2,
 * 30 s cap). Each client is a real ConnectionManager (20 s minConnectTimeout, waits from the start of
 * each attempt).
 * @module
 */
import { exponentialBackoff, type JitterKind } from '../../../backoff/exponential-backoff.js';
import { type GrpcJitterMode, grpcBackoff } from '../../../backoff/grpc-backoff.js';
import type { StormPolicy } from '../storm-policy.js';

/** redialer's default: `grpcBackoff()` (1 s, ×1.6, one ±20 % factor per episode, 120 s cap). */
export const redialerGrpcPolicy: StormPolicy = {
  name: 'redialer-grpc',
  description:
    'redialer grpcBackoff() default: 1 s, ×1.6, one ±20 % factor per backoff episode, 120 s cap; immediate first attempt',
  forClient: () => ({ backoff: grpcBackoff() }),
};

function grpcMode(jitterMode: GrpcJitterMode, what: string): StormPolicy {
  return {
    name: `redialer-grpc-${jitterMode}`,
    description: `redialer grpcBackoff({ jitterMode: '${jitterMode}' }): 1 s, ×1.6, ${what}, 120 s cap; immediate first attempt`,
    forClient: () => ({ backoff: grpcBackoff({ jitterMode }) }),
  };
}

/** The protocol page's jitter: a fresh ±20 % draw for every wait. */
export const redialerGrpcIndependentPolicy = grpcMode('independent', 'a fresh ±20 % draw per wait (the protocol page)');
/** One log-uniform factor per episode over [0.8, 1.2]. */
export const redialerGrpcEpisodeLogPolicy = grpcMode('episode-log', 'one log-uniform factor in [0.8, 1.2] per episode');
/** One log-uniform factor per episode over one multiplier period, [1.6^−½, 1.6^½]. */
export const redialerGrpcEpisodePeriodPolicy = grpcMode(
  'episode-period',
  'one log-uniform factor in [0.79, 1.26] per episode',
);

/** The default policy with `reconnectSpread: 5000`: the first reconnect after the loss waits U(0, 5 s). */
export const redialerGrpcSpreadPolicy: StormPolicy = {
  name: 'redialer-grpc-spread',
  description: 'redialer grpcBackoff() with reconnectSpread 5000: the first attempt after the loss waits U(0, 5 s)',
  forClient: () => ({ backoff: grpcBackoff(), reconnectSpread: 5000 }),
};

/** The default policy with `serverHints: 'exact'`: a server's retry hint is the wait, within [1 s, 120 s]. */
export const redialerGrpcExactPolicy: StormPolicy = {
  name: 'redialer-grpc-exact',
  description:
    "redialer grpcBackoff() with serverHints: 'exact': a server's retry hint is the wait itself, clamped into [1 s, 120 s]",
  forClient: () => ({ backoff: grpcBackoff(), serverHints: 'exact' }),
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
