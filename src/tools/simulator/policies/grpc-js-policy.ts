/**
 * The reconnect behaviour of @grpc/grpc-js 1.14, as a formula.
 *
 * Source: grpc/grpc-node `packages/grpc-js/src/backoff-timeout.ts` (as published in 1.14.7): defaults
 * on lines 23–26 (1 s, ×1.6, 120 s, 0.2), `runOnce()` on lines 169–181. `runOnce()` arms the timer with
 * `nextDelay` and then sets `nextDelay = min(nextDelay × 1.6, max) ± 20 %`: the jitter of one wait is
 * multiplied into every later one (it compounds), unlike the gRPC spec, which jitters the un-jittered
 * backoff. A subchannel runs the timer from the start of each attempt and reconnects at once after a
 * READY connection is lost. grpc-js has no connect timeout of its own (grpc/grpc-node#2785): an
 * attempt that is never answered lasts until the operating system gives up on the TCP handshake
 * (Linux's default `tcp_syn_retries` = 6: 1 + 2 + 4 + 8 + 16 + 32 + 64 = 127 s).
 * @module
 */
import { unfoldBackoff } from './unfold-backoff.js';
import type { PeerRules, StormPolicy } from '../storm-policy.js';

/** @grpc/grpc-js BackoffTimeout defaults. */
export const GRPC_JS_DEFAULTS = Object.freeze({ initialDelay: 1000, multiplier: 1.6, maxDelay: 120_000, jitter: 0.2 });

/** How a grpc-js subchannel reconnects: waits from the attempt's start, no connect timeout but the OS's. */
export const GRPC_JS_RULES: PeerRules = Object.freeze({ measuredFrom: 'attempt-start', connectTimeout: 127_000 });

/** The wait after `delay` in grpc-js: ×1.6, capped, then ±20 % of that (and multiplied again next time). */
function grpcJsNext(delay: number, random: () => number): number {
  const { multiplier, maxDelay, jitter } = GRPC_JS_DEFAULTS;
  const next = Math.min(delay * multiplier, maxDelay);
  // uniformRandom(min, max) = Math.random() * (max - min) + min
  return random() * (2 * next * jitter) - next * jitter + next;
}

/** @grpc/grpc-js 1.14's compounding-jitter backoff (modelled; the benchmark drives the real class). */
export const grpcJsPolicy: StormPolicy = {
  name: 'grpc-js',
  description:
    '@grpc/grpc-js 1.14 BackoffTimeout: 1 s, ×1.6 with ±20 % jitter compounding, 120 s cap; immediate first attempt; no connect timeout (OS: 127 s)',
  forClient: () => ({
    rules: GRPC_JS_RULES,
    // runOnce() arms the current wait and draws the next one at once: one draw per step, the first included.
    backoff: unfoldBackoff(
      (random): { delay: number; following: number } => ({
        delay: GRPC_JS_DEFAULTS.initialDelay,
        following: grpcJsNext(GRPC_JS_DEFAULTS.initialDelay, random),
      }),
      (step, random) => ({ delay: step.following, following: grpcJsNext(step.following, random) }),
      (step) => step.delay,
    ),
  }),
};
