/**
 * A jittered reconnect schedule for ioredis (and so for BullMQ's queues and workers). BullMQ's own
 * `retryStrategy` is `max(min(e^times, 20000), 1000)` — no jitter at all — so a fleet that lost
 * Redis comes back in lock-step; ioredis's default adds 0–200 ms to a 5 s cap.
 * @module
 */
import { type BackoffPolicy, type RandomSource, uniform } from '../../backoff/backoff.js';
import { grpcBackoff } from '../../backoff/grpc-backoff.js';
import { runGuarded } from '../../internal/report-unhandled-error.js';
import { checkOptionsObject, describeValue, optionalFunction, optionalNumber } from '../../internal/validate.js';

/** Options of {@link ioredisRetryStrategy}; every time is in milliseconds. */
export interface IoredisRetryStrategyOptions {
  /** The schedule: reconnect attempt n waits step n. @defaultValue `grpcBackoff({ maxBackoff: 20_000 })` (BullMQ's 20 s cap) */
  readonly backoff?: BackoffPolicy;
  /**
   * Relative jitter for the first wait, which gRPC's schedule leaves exact (`initialBackoff`): without
   * it every process that lost the same Redis at the same moment would come back together. In [0, 1];
   * 0 keeps the policy's first step as it is. @defaultValue 0.2
   */
  readonly firstJitter?: number;
  /** Reconnect attempts before giving up (ioredis then ends the connection). @defaultValue Infinity */
  readonly maxAttempts?: number;
  /** The random source, returning numbers in [0, 1]. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /**
   * Called with each reconnect attempt's number and wait, e.g. for logs or metrics; if it throws, the
   * error goes to RxJS's `config.onUnhandledError` (else it is rethrown asynchronously). @defaultValue none
   */
  readonly onRetry?: (attempt: number, delay: number) => void;
}

/**
 * An ioredis `retryStrategy(times)`: the wait before reconnect attempt `times` (1-based), from a
 * redialer backoff policy — gRPC's by default, jittered from the first wait on — or `null` after
 * `maxAttempts`. It keeps no state: each call replays the schedule to step `times`.
 *
 * @example
 * ```ts
 * const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null, retryStrategy: ioredisRetryStrategy() };
 * const worker = new Worker('mail', processor, { connection });
 * ```
 */
export function ioredisRetryStrategy(options: IoredisRetryStrategyOptions = {}): (times: number) => number | null {
  const raw = checkOptionsObject('ioredisRetryStrategy options', options);
  const backoff: unknown = raw['backoff'] ?? grpcBackoff({ maxBackoff: 20_000 });
  if (typeof backoff !== 'object' || backoff === null || typeof (backoff as { first?: unknown }).first !== 'function') {
    throw new TypeError(
      `redialer: option "backoff" must be a backoff policy (an object with first()), got ${describeValue(backoff)}`,
    );
  }
  const policy = backoff as BackoffPolicy;
  const firstJitter = optionalNumber('firstJitter', raw['firstJitter'], 0.2, { min: 0, max: 1 });
  const maxAttempts = optionalNumber('maxAttempts', raw['maxAttempts'], Infinity, {
    min: 1,
    integer: true,
    allowInfinity: true,
  });
  const random = optionalFunction('random', raw['random'], Math.random);
  const onRetry = optionalFunction<(attempt: number, delay: number) => void>('onRetry', raw['onRetry']);
  return (times: number): number | null => {
    if (times > maxAttempts) return null;
    let step = policy.first(random);
    let delay = step.delay * uniform(random, 1 - firstJitter, 1 + firstJitter);
    // Steps after the first carry the policy's own jitter; replay at most a few hundred (the cap is long reached).
    for (let n = 1; n < Math.min(times, 500); n++) {
      step = step.next(random);
      delay = step.delay;
    }
    const wait = Math.round(Math.max(0, delay));
    if (onRetry !== undefined) {
      runGuarded(() => {
        onRetry(times, wait);
      }, undefined);
    }
    return wait;
  };
}
