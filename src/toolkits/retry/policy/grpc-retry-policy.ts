/**
 * gRPC's retry policy (gRFC A6, "Retry Policy") as retry options: attempt limit, backoff and the
 * retryable status codes of a service config's `retryPolicy`.
 * @module
 */
import {
  type Backoff,
  type BackoffPolicy,
  MAX_DELAY_MS,
  type RandomSource,
  clampDelay,
  uniform,
} from '../../../backoff/backoff.js';
import { checkNumber, checkOptionsObject, describeValue } from '../../../internal/validate.js';
import { createClassifier } from '../classification/classify.js';
import type { RetryPolicyOptions } from './retry-options.js';

/** gRFC A6 caps `maxAttempts`: larger values are treated as 5. */
export const GRPC_MAX_ATTEMPTS_LIMIT = 5;

/** Options of {@link grpcRetryBackoff}; times in milliseconds. */
export interface GrpcRetryBackoffOptions {
  /** The first un-jittered wait (> 0). */
  readonly initialBackoff: number;
  /** The cap on the un-jittered wait (> 0). */
  readonly maxBackoff: number;
  /** Growth per retry (> 0). */
  readonly backoffMultiplier: number;
  /**
   * A relative jitter in [0, 1] (each wait is the backoff × uniform(1 − j, 1 + j), as gRPC's C core
   * does), or `'full'` for uniform(0, backoff), the formula of gRFC A6's text. @defaultValue 0.2
   */
  readonly jitter?: number | 'full';
}

class RetryStep implements Backoff {
  constructor(
    readonly delay: number,
    private readonly base: number,
    private readonly options: Required<GrpcRetryBackoffOptions>,
  ) {}

  next(random: RandomSource): Backoff {
    return step(Math.min(this.base * this.options.backoffMultiplier, this.options.maxBackoff), this.options, random);
  }
}

function step(base: number, options: Required<GrpcRetryBackoffOptions>, random: RandomSource): RetryStep {
  const { jitter } = options;
  const delay = jitter === 'full' ? uniform(random, 0, base) : base * uniform(random, 1 - jitter, 1 + jitter);
  return new RetryStep(clampDelay(delay), base, options);
}

/**
 * The backoff of gRPC retries: min(initialBackoff × backoffMultiplier^(n−1), maxBackoff), jittered on
 * every retry, the first included.
 *
 * @example
 * ```ts
 * const backoff = grpcRetryBackoff({ initialBackoff: 100, maxBackoff: 1000, backoffMultiplier: 2 });
 * ```
 */
export function grpcRetryBackoff(options: GrpcRetryBackoffOptions): BackoffPolicy {
  const raw = checkOptionsObject('grpcRetryBackoff options', options);
  const initialBackoff = checkNumber('initialBackoff', raw['initialBackoff'], {
    min: Number.MIN_VALUE,
    max: MAX_DELAY_MS,
  });
  const maxBackoff = checkNumber('maxBackoff', raw['maxBackoff'], { min: Number.MIN_VALUE, allowInfinity: true });
  const backoffMultiplier = checkNumber('backoffMultiplier', raw['backoffMultiplier'], { min: Number.MIN_VALUE });
  const rawJitter = raw['jitter'];
  const jitter =
    rawJitter === 'full'
      ? 'full'
      : rawJitter === undefined
        ? 0.2
        : checkNumber('jitter', rawJitter, { min: 0, max: 1 });
  const resolved: Required<GrpcRetryBackoffOptions> = {
    initialBackoff,
    maxBackoff: Math.min(maxBackoff, MAX_DELAY_MS),
    backoffMultiplier,
    jitter,
  };
  const first = Math.min(initialBackoff, resolved.maxBackoff);
  return { first: (random) => step(first, resolved, random) };
}

/** A service config's `retryPolicy` (gRFC A6), with times in milliseconds instead of duration strings. */
export interface GrpcRetryPolicyOptions extends GrpcRetryBackoffOptions {
  /** The most attempts, the original included: an integer > 1; values above 5 are treated as 5. */
  readonly maxAttempts: number;
  /** The status codes (numbers or names such as `UNAVAILABLE`) that are retried; at least one. */
  readonly retryableStatusCodes: readonly (number | string)[];
}

/**
 * A preset for gRPC's retry policy (gRFC A6): spread it into `retry()` or `retryBackoff()` options.
 * Server pushback (`grpc-retry-pushback-ms`) is honoured by every retry loop; add a shared
 * {@link tokenBucketBudget} for A6's retry throttling.
 *
 * @example
 * ```ts
 * const policy = grpcRetryPolicy({
 *   maxAttempts: 4, initialBackoff: 100, maxBackoff: 1000, backoffMultiplier: 2,
 *   retryableStatusCodes: ['UNAVAILABLE'],
 * });
 * await retry(({ signal }) => unaryCall(request, signal), { ...policy, totalTimeout: 5000 });
 * ```
 */
export function grpcRetryPolicy(
  options: GrpcRetryPolicyOptions,
): Required<Pick<RetryPolicyOptions, 'maxAttempts' | 'backoff' | 'classify'>> {
  const raw = checkOptionsObject('grpcRetryPolicy options', options);
  const maxAttempts = checkNumber('maxAttempts', raw['maxAttempts'], { min: 2, integer: true, allowInfinity: true });
  const codes = raw['retryableStatusCodes'];
  if (!Array.isArray(codes) || codes.length === 0) {
    throw new TypeError(
      `redialer: option "retryableStatusCodes" must be a non-empty array, got ${describeValue(codes)}`,
    );
  }
  return {
    maxAttempts: Math.min(maxAttempts, GRPC_MAX_ATTEMPTS_LIMIT),
    backoff: grpcRetryBackoff(options),
    classify: createClassifier({ retryableGrpcCodes: codes as (number | string)[] }),
  };
}
