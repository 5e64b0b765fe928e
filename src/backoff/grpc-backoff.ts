/**
 * gRPC's connection backoff (grpc/grpc doc/connection-backoff.md): the first wait is exactly the
 * initial backoff; each later wait is the un-jittered backoff times the multiplier, capped, then moved
 * by up to ±jitter of itself. The jitter never feeds back into the un-jittered backoff, and because it
 * is applied after the cap, waits keep spreading (96–144 s with the defaults) once the cap is reached.
 *
 * Where the jitter comes from is the `jitterMode`. The protocol page draws it afresh for every wait
 * (`'independent'`): clients that failed together then sit within ±20 % of the same fixed schedule
 * after every failure and come back in waves. By default one factor is drawn per backoff episode
 * (from a reset to the next reset) and applies to every wait of that episode (`'episode'`): each wait
 * has exactly the protocol's distribution, but a herd stays spread instead of re-converging.
 * @module
 */
import { checkOptionsObject, optionalChoice, optionalNumber } from '../validate.js';
import { type Backoff, type BackoffPolicy, MAX_DELAY_MS, type RandomSource, clampDelay, uniform } from './backoff.js';

/**
 * Where {@link grpcBackoff}'s jitter is drawn:
 * - `'episode'` (default): one factor per episode, uniform in [1 − jitter, 1 + jitter];
 * - `'episode-log'`: one factor per episode, log-uniform over the same band;
 * - `'episode-period'`: one factor per episode, log-uniform over one multiplier period
 *   [multiplier^−½, multiplier^½] (wider than ±20 % with the defaults: outside the protocol's band);
 * - `'independent'`: a fresh uniform draw for every wait, as the protocol page specifies.
 */
export type GrpcJitterMode = 'episode' | 'episode-log' | 'episode-period' | 'independent';

/** The jitter modes, for validation and iteration. */
export const GRPC_JITTER_MODES: readonly GrpcJitterMode[] = Object.freeze([
  'episode',
  'episode-log',
  'episode-period',
  'independent',
]);

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
  /** Where the jitter is drawn: once per episode (default) or for every wait. @defaultValue 'episode' */
  readonly jitterMode?: GrpcJitterMode;
}

/** gRPC's defaults, as numbers; `jitterMode` is redialer's. */
export const GRPC_BACKOFF_DEFAULTS = Object.freeze({
  initialBackoff: 1000,
  multiplier: 1.6,
  jitter: 0.2,
  maxBackoff: 120_000,
  jitterMode: 'episode',
} satisfies Required<GrpcBackoffOptions>);

/** The episode's factor for a draw `r` in [0, 1]. */
function episodeFactor(r: number, options: Required<GrpcBackoffOptions>): number {
  const { jitter, multiplier, jitterMode } = options;
  if (jitterMode === 'episode-period') return multiplier ** (r - 0.5);
  if (jitterMode === 'episode-log') return jitter >= 1 ? 2 * r : (1 - jitter) * ((1 + jitter) / (1 - jitter)) ** r;
  return 1 - jitter + 2 * jitter * r;
}

class GrpcBackoff implements Backoff {
  constructor(
    /** The wait after this failure, jitter included. */
    readonly delay: number,
    /** The un-jittered backoff this step was derived from. */
    readonly base: number,
    private readonly options: Required<GrpcBackoffOptions>,
    /** The episode's jitter factor, drawn at the first jittered wait (undefined before, and in 'independent'). */
    private readonly factor: number | undefined,
  ) {}

  next(random: RandomSource): Backoff {
    const { multiplier, maxBackoff, jitter, jitterMode } = this.options;
    const base = Math.min(this.base * multiplier, maxBackoff);
    if (jitterMode === 'independent') {
      const spread = jitter * base;
      return new GrpcBackoff(clampDelay(base + uniform(random, -spread, spread)), base, this.options, undefined);
    }
    const factor = this.factor ?? episodeFactor(uniform(random, 0, 1), this.options);
    return new GrpcBackoff(clampDelay(base * factor), base, this.options, factor);
  }
}

/**
 * The gRPC connection-backoff policy (1 s, ×1.6, ±20 %, 120 s cap by default), with one jitter
 * factor per episode unless `jitterMode: 'independent'`.
 *
 * @example
 * ```ts
 * const policy = grpcBackoff({ initialBackoff: 500, maxBackoff: 30_000 });
 * const asSpecified = grpcBackoff({ jitterMode: 'independent' }); // a fresh draw for every wait
 * ```
 */
export function grpcBackoff(options: GrpcBackoffOptions = {}): BackoffPolicy {
  const raw = checkOptionsObject('grpcBackoff options', options);
  const d = GRPC_BACKOFF_DEFAULTS;
  const initialBackoff = optionalNumber('initialBackoff', raw['initialBackoff'], d.initialBackoff, {
    min: 0,
    max: MAX_DELAY_MS,
  });
  const resolved: { -readonly [K in keyof GrpcBackoffOptions]-?: Required<GrpcBackoffOptions>[K] } = {
    initialBackoff,
    multiplier: optionalNumber('multiplier', raw['multiplier'], d.multiplier, { min: 1 }),
    jitter: optionalNumber('jitter', raw['jitter'], d.jitter, { min: 0, max: 1 }),
    maxBackoff: optionalNumber('maxBackoff', raw['maxBackoff'], Math.max(d.maxBackoff, initialBackoff), {
      min: initialBackoff,
      allowInfinity: true,
    }),
    jitterMode: optionalChoice('jitterMode', raw['jitterMode'], GRPC_JITTER_MODES, d.jitterMode),
  };
  // Cap at the largest timer, so that no product or jitter can overflow to Infinity or NaN.
  resolved.maxBackoff = Math.min(resolved.maxBackoff, MAX_DELAY_MS);
  const first = new GrpcBackoff(clampDelay(resolved.initialBackoff), resolved.initialBackoff, resolved, undefined);
  // The longest wait: the cap moved up by the largest jitter factor.
  const top = resolved.jitterMode === 'episode-period' ? Math.sqrt(resolved.multiplier) : 1 + resolved.jitter;
  return { first: () => first, bounds: { min: first.delay, max: clampDelay(resolved.maxBackoff * top) } };
}
