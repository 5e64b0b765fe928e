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

/**
 * Why the failover call gave up. `maybe-sent`: the call is not idempotent and may have reached a
 * provider (its attempt timed out, or failed after it was sent), so no other provider was tried.
 */
export type FailoverGiveUp = 'attempts' | 'deadline' | 'no-provider' | 'maybe-sent';

/** Options of {@link FailoverError}. */
export interface FailoverErrorOptions extends ErrorOptions {
  /** The provider the call may have reached: cut, timed out, or failed after it was sent. */
  readonly maybeSentTo?: string;
}

/**
 * Every provider of a `failover()` call failed or was skipped. `outcomes` says what each one did; the
 * message lists them. Marked as having used up its retries, so an outer retry layer does not repeat it.
 */
export class FailoverError extends Error {
  override readonly name = 'FailoverError';
  /**
   * The provider the call may have reached (its attempt was cut or timed out, or failed after it was
   * sent), if any: a non-idempotent operation may have been carried out there.
   */
  readonly maybeSentTo: string | undefined;

  constructor(
    /** `attempts`: `maxAttempts` were made; `deadline`: the shared deadline came (or would before any provider is due); `no-provider`: no provider can be tried again; `maybe-sent`: see {@link FailoverGiveUp}. */
    readonly reason: FailoverGiveUp,
    /** One entry per provider, in the configured order. */
    readonly outcomes: readonly ProviderOutcome[],
    options?: FailoverErrorOptions,
  ) {
    const lines = outcomes.map((o) => `${o.provider}: ${o.outcome}${o.detail === '' ? '' : ` (${o.detail})`}`);
    const head =
      reason === 'maybe-sent'
        ? `failover stopped: the call may have reached ${options?.maybeSentTo ?? 'a provider'} and is not idempotent, so no other provider was tried`
        : `failover gave up (${reason}) after trying ${String(outcomes.length)} providers`;
    super(`${head}: ${lines.join('; ')}`, options);
    this.maybeSentTo = options?.maybeSentTo;
    brand(this, 'FailoverError');
    markRetriesExhausted(this);
  }
}

/** Whether `value` is a {@link FailoverError} (from any copy of redialer). */
export function isFailoverError(value: unknown): value is FailoverError {
  return hasBrand(value, 'FailoverError');
}
