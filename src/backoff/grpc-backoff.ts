/**
 * gRPC's connection backoff (grpc/grpc doc/connection-backoff.md): the first wait is exactly the
 * initial backoff; each later wait is the un-jittered backoff times the multiplier, capped, then moved
 * uniformly by up to ±jitter of itself. The jitter never feeds back into the next step, and because it
 * is applied after the cap, waits keep spreading (96–144 s with the defaults) once the cap is reached.
 * @module
 */
import { checkOptionsObject, optionalNumber } from '../validate.js';
import { type Backoff, type BackoffPolicy, MAX_DELAY_MS, type RandomSource, clampDelay, uniform } from './backoff.js';

/** Options of {@link grpcBackoff}; every time is in milliseconds. */
export interface GrpcBackoffOptions {
  /** Wait after the first failed attempt. @defaultValue 1000 */
  readonly initialBackoff?: number;
  /** Growth of the backoff after each failure (>= 1). @defaultValue 1.6 */
  readonly multiplier?: number;
  /** Relative jitter in [0, 1]: each wait after the first moves by up to ±jitter × backoff. @defaultValue 0.2 */
  readonly jitter?: number;
  /** Cap on the un-jittered backoff (>= initialBackoff). @defaultValue 120000 */
  readonly maxBackoff?: number;
}

/** gRPC's defaults, as numbers. */
export const GRPC_BACKOFF_DEFAULTS = Object.freeze({
  initialBackoff: 1000,
  multiplier: 1.6,
  jitter: 0.2,
  maxBackoff: 120_000,
} satisfies Required<GrpcBackoffOptions>);

class GrpcBackoff implements Backoff {
  constructor(
    /** The wait after this failure, jitter included. */
    readonly delay: number,
    /** The un-jittered backoff this step was derived from. */
    readonly base: number,
    private readonly options: Required<GrpcBackoffOptions>,
  ) {}

  next(random: RandomSource): Backoff {
    const { multiplier, maxBackoff, jitter } = this.options;
    const base = Math.min(this.base * multiplier, maxBackoff);
    const spread = jitter * base;
    return new GrpcBackoff(clampDelay(base + uniform(random, -spread, spread)), base, this.options);
  }
}

/**
 * The gRPC connection-backoff policy (1 s, ×1.6, ±20 %, 120 s cap by default).
 *
 * @example
 * ```ts
 * const policy = grpcBackoff({ initialBackoff: 500, maxBackoff: 30_000 });
 * ```
 */
export function grpcBackoff(options: GrpcBackoffOptions = {}): BackoffPolicy {
  const raw = checkOptionsObject('grpcBackoff options', options);
  const d = GRPC_BACKOFF_DEFAULTS;
  const initialBackoff = optionalNumber('initialBackoff', raw['initialBackoff'], d.initialBackoff, { min: 0, max: MAX_DELAY_MS });
  const resolved: { -readonly [K in keyof GrpcBackoffOptions]-?: number } = {
    initialBackoff,
    multiplier: optionalNumber('multiplier', raw['multiplier'], d.multiplier, { min: 1 }),
    jitter: optionalNumber('jitter', raw['jitter'], d.jitter, { min: 0, max: 1 }),
    maxBackoff: optionalNumber('maxBackoff', raw['maxBackoff'], Math.max(d.maxBackoff, initialBackoff), {
      min: initialBackoff,
      allowInfinity: true,
    }),
  };
  // Cap at the largest timer, so that no product or jitter can overflow to Infinity or NaN.
  resolved.maxBackoff = Math.min(resolved.maxBackoff, MAX_DELAY_MS);
  const first = new GrpcBackoff(clampDelay(resolved.initialBackoff), resolved.initialBackoff, resolved);
  return { first: () => first };
}
