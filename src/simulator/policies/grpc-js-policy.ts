/**
 * The reconnect behaviour of @grpc/grpc-js 1.14, as a formula.
 *
 * Source: grpc/grpc-node `packages/grpc-js/src/backoff-timeout.ts` (as published in 1.14.7): defaults
 * on lines 23–26 (1 s, ×1.6, 120 s, 0.2), `runOnce()` on lines 169–181. `runOnce()` arms the timer with
 * `nextDelay` and then sets `nextDelay = min(nextDelay × 1.6, max) ± 20 %`: the jitter of one wait is
 * multiplied into every later one (it compounds), unlike the gRPC spec, which jitters the un-jittered
 * backoff. A subchannel runs the timer from the start of each attempt and reconnects at once after a
 * READY connection is lost.
 * @module
 */
import { unfoldBackoff } from './unfold-backoff.js';
import type { StormPolicy } from '../storm-policy.js';

/** @grpc/grpc-js BackoffTimeout defaults. */
export const GRPC_JS_DEFAULTS = Object.freeze({ initialDelay: 1000, multiplier: 1.6, maxDelay: 120_000, jitter: 0.2 });

/** @grpc/grpc-js 1.14's compounding-jitter backoff (modelled; the benchmark drives the real class). */
export const grpcJsPolicy: StormPolicy = {
  name: 'grpc-js',
  description: '@grpc/grpc-js 1.14 BackoffTimeout: 1 s, ×1.6 with ±20 % jitter compounding, 120 s cap; immediate first attempt',
  forClient: () => ({
    backoff: unfoldBackoff(
      (): number => GRPC_JS_DEFAULTS.initialDelay,
      (delay, random) => {
        const { multiplier, maxDelay, jitter } = GRPC_JS_DEFAULTS;
        const next = Math.min(delay * multiplier, maxDelay);
        // uniformRandom(min, max) = Math.random() * (max - min) + min
        return random() * (2 * next * jitter) - next * jitter + next;
      },
      (delay) => delay,
    ),
  }),
};
