import { brand, hasBrand } from '../../../internal/brand.js';
import { markRetriesExhausted } from '../core/retries-exhausted.js';

/** What one provider did during a failover call. */
export interface ProviderOutcome {
  /** The provider's name. */
  readonly provider: string;
  /** How many attempts it was given in this call. */
  readonly attempts: number;
  /**
   * Its last word: `failed` (a transient failure), `timed-out` (cut by `attemptTimeout`), `skipped`
   * (its breaker was open, its backoff or the server's hint had it wait, or its budget refused a
   * retry), `cut` (the deadline or a faster provider ended its attempt), or `not-tried`.
   */
  readonly outcome: 'failed' | 'timed-out' | 'skipped' | 'cut' | 'not-tried';
  /** Why, in words. */
  readonly detail: string;
  /** Its last error, if it failed. */
  readonly error: unknown;
}

/** Why the failover call gave up. */
export type FailoverGiveUp = 'attempts' | 'deadline' | 'no-provider';

/**
 * Every provider of a `failover()` call failed or was skipped. `outcomes` says what each one did; the
 * message lists them. Marked as having used up its retries, so an outer retry layer does not repeat it.
 */
export class FailoverError extends Error {
  override readonly name = 'FailoverError';

  constructor(
    /** `attempts`: `maxAttempts` were made; `deadline`: the shared deadline came (or would before any provider is due); `no-provider`: no provider can be tried again. */
    readonly reason: FailoverGiveUp,
    /** One entry per provider, in the configured order. */
    readonly outcomes: readonly ProviderOutcome[],
    options?: ErrorOptions,
  ) {
    const lines = outcomes.map((o) => `${o.provider}: ${o.outcome}${o.detail === '' ? '' : ` (${o.detail})`}`);
    super(
      `failover gave up (${reason}) after trying ${String(outcomes.length)} providers: ${lines.join('; ')}`,
      options,
    );
    brand(this, 'FailoverError');
    markRetriesExhausted(this);
  }
}

/** Whether `value` is a {@link FailoverError} (from any copy of redialer). */
export function isFailoverError(value: unknown): value is FailoverError {
  return hasBrand(value, 'FailoverError');
}
