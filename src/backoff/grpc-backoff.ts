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
import { checkOptionsObject, optionalChoice, optionalNumber } from '../internal/validate.js';
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

/**
 * What a policy's steps read besides their own backoff: the growth, the jitter, the cap and the jitter
 * mode. Interned by value, so that policies which differ only in their initial backoff (a fleet that
 * staggers its managers' first waits) share one, and its fractional numbers are boxed once.
 */
class GrpcShape {
  constructor(
    readonly multiplier: number,
    readonly jitter: number,
    /** Capped at the largest timer, so that no product or jitter can overflow to Infinity or NaN. */
    readonly maxBackoff: number,
    readonly jitterMode: GrpcJitterMode,
  ) {}
}

/** The episode's factor for a draw `r` in [0, 1]. */
function episodeFactor(r: number, shape: GrpcShape): number {
  const { jitter, multiplier, jitterMode } = shape;
  if (jitterMode === 'episode-period') return multiplier ** (r - 0.5);
  if (jitterMode === 'episode-log') return jitter >= 1 ? 2 * r : (1 - jitter) * ((1 + jitter) / (1 - jitter)) ** r;
  return 1 - jitter + 2 * jitter * r;
}

/** The step after one whose un-jittered backoff was `base` (and whose episode factor is `factor`, if drawn). */
function nextStep(base: number, factor: number | undefined, shape: GrpcShape, random: RandomSource): Backoff {
  const { multiplier, maxBackoff, jitter, jitterMode } = shape;
  const grown = Math.min(base * multiplier, maxBackoff);
  if (jitterMode === 'independent') {
    const spread = jitter * grown;
    return new GrpcBackoff(clampDelay(grown + uniform(random, -spread, spread)), grown, shape, undefined);
  }
  const drawn = factor ?? episodeFactor(uniform(random, 0, 1), shape);
  return new GrpcBackoff(clampDelay(grown * drawn), grown, shape, drawn);
}

/**
 * The policy, which is also its own first step (the first wait is the initial backoff, un-jittered):
 * one object of two fields per policy, its shape shared, and `first()`, `next()` and `bounds` on the
 * prototype, so that a policy per manager (a fleet whose managers each get their own options) costs
 * one small object.
 */
class GrpcBackoffPolicy implements BackoffPolicy, Backoff {
  constructor(
    /** The initial backoff: the first wait, exactly. */
    readonly delay: number,
    private readonly shape: GrpcShape,
  ) {}

  first(): Backoff {
    return this;
  }

  next(random: RandomSource): Backoff {
    return nextStep(this.delay, undefined, this.shape, random);
  }

  get bounds(): { readonly min: number; readonly max: number } {
    const { jitterMode, multiplier, jitter, maxBackoff } = this.shape;
    // The longest wait: the cap moved up by the largest jitter factor.
    const top = jitterMode === 'episode-period' ? Math.sqrt(multiplier) : 1 + jitter;
    return { min: this.delay, max: clampDelay(maxBackoff * top) };
  }
}

/** The policies and the shapes made most recently, by parameters; the oldest is dropped past {@link INTERNED}. */
const interned = new Map<string, GrpcBackoffPolicy>();
const shapes = new Map<string, GrpcShape>();
const INTERNED = 64;

/** `map.get(key)`, or `make()` stored under `key`, the oldest entry dropped past {@link INTERNED}. */
function internedIn<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
    if (map.size > INTERNED) map.delete(map.keys().next().value ?? key);
  }
  return value;
}

class GrpcBackoff implements Backoff {
  constructor(
    /** The wait after this failure, jitter included. */
    readonly delay: number,
    /** The un-jittered backoff this step was derived from. */
    readonly base: number,
    private readonly shape: GrpcShape,
    /** The episode's jitter factor, drawn at the first jittered wait (undefined in 'independent'). */
    private readonly factor: number | undefined,
  ) {}

  next(random: RandomSource): Backoff {
    return nextStep(this.base, this.factor, this.shape, random);
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
 *
 * A policy is an immutable value, so calls with the same parameters may return the same object.
 */
export function grpcBackoff(options: GrpcBackoffOptions = {}): BackoffPolicy {
  const raw = checkOptionsObject('grpcBackoff options', options);
  const d = GRPC_BACKOFF_DEFAULTS;
  const initialBackoff = optionalNumber('initialBackoff', raw['initialBackoff'], d.initialBackoff, {
    min: 0,
    max: MAX_DELAY_MS,
  });
  const multiplier = optionalNumber('multiplier', raw['multiplier'], d.multiplier, { min: 1 });
  const jitter = optionalNumber('jitter', raw['jitter'], d.jitter, { min: 0, max: 1 });
  const maxBackoff = optionalNumber('maxBackoff', raw['maxBackoff'], Math.max(d.maxBackoff, initialBackoff), {
    min: initialBackoff,
    allowInfinity: true,
  });
  const jitterMode = optionalChoice('jitterMode', raw['jitterMode'], GRPC_JITTER_MODES, d.jitterMode);
  const cap = Math.min(maxBackoff, MAX_DELAY_MS);
  // A policy is an immutable value: calls with the same parameters share one (a fleet whose managers
  // each call grpcBackoff({...}) holds one policy instead of one each), and policies share their shape.
  const shapeKey = `${String(multiplier)}/${String(jitter)}/${String(cap)}/${jitterMode}`;
  return internedIn(interned, `${String(initialBackoff)}/${shapeKey}`, () => {
    const shape = internedIn(shapes, shapeKey, () => new GrpcShape(multiplier, jitter, cap, jitterMode));
    return new GrpcBackoffPolicy(clampDelay(initialBackoff), shape);
  });
}
