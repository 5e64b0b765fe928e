/**
 * RFC 6298's retransmission timeout: a smoothed round-trip time (SRTT) and its variation (RTTVAR)
 * give a timeout that follows the path, doubling on each expiry. Here it serves as an adaptive
 * per-attempt timeout. The estimator is an immutable value (like a backoff step); {@link RtoTracker}
 * holds one for a destination and plugs into `retry({ attemptTimeout })`.
 * @module
 */
import { checkNumber, checkOptionsObject, optionalNumber } from '../../../internal/validate.js';

/** RFC 6298's constants: K = 4, alpha = 1/8, beta = 1/4. */
export const RFC6298 = Object.freeze({
  K: 4,
  alpha: 1 / 8,
  beta: 1 / 4,
  initialRto: 1000,
  minRto: 1000,
  maxRtoAtLeast: 60_000,
});

/** The least RTO whatever the options: a timer of 0 ms would cut every attempt at once. */
const RTO_FLOOR = 1;

/** Options of {@link rtoEstimator}; times in milliseconds. */
export interface RtoEstimatorOptions {
  /** The RTO before any sample (RFC 6298 (2.1)). @defaultValue 1000 */
  readonly initialRto?: number;
  /**
   * The floor (RFC 6298 (2.4) says 1 s; lower floors depart from it). Whatever it is, the RTO never
   * drops below 1 ms: `{ minRto: 0, granularity: 0 }` cannot make a 0 ms timeout. @defaultValue 1000
   */
  readonly minRto?: number;
  /** The cap: at least 60 s (RFC 6298 (2.5)). @defaultValue 60000 */
  readonly maxRto?: number;
  /** The clock granularity G in `SRTT + max(G, K × RTTVAR)`. @defaultValue 1 */
  readonly granularity?: number;
}

interface Settings {
  readonly minRto: number;
  readonly maxRto: number;
  readonly granularity: number;
}

/** Options of {@link RtoEstimator.sample}. */
export interface RttSampleOptions {
  /**
   * Whether the measured exchange was retransmitted, so that the reply cannot be matched to one
   * transmission. Karn's rule: such a sample is not used, and a backed-off RTO stays until a sample
   * from an exchange that was sent once. @defaultValue false
   */
  readonly retransmitted?: boolean;
}

/** One state of the RFC 6298 estimator. */
export class RtoEstimator {
  /** @internal Use {@link rtoEstimator}. */
  constructor(
    /** The smoothed RTT, or undefined before the first sample. */
    readonly srtt: number | undefined,
    /** The RTT variation, or undefined before the first sample. */
    readonly rttvar: number | undefined,
    /** The current retransmission timeout, within [max(minRto, 1), maxRto]. */
    readonly rto: number,
    /** How many times the timer has been backed off since the last valid sample. */
    readonly backoffs: number,
    private readonly settings: Settings,
  ) {}

  /**
   * The estimator after a round-trip measurement `rtt` (RFC 6298 (2.2) for the first, (2.3) after):
   * RTTVAR is updated with the old SRTT before SRTT is updated, as the RFC requires.
   */
  sample(rtt: number, options: RttSampleOptions = {}): RtoEstimator {
    checkNumber('rtt', rtt, { min: 0 });
    if (options.retransmitted === true) return this;
    const { K, alpha, beta } = RFC6298;
    let srtt: number;
    let rttvar: number;
    if (this.srtt === undefined || this.rttvar === undefined) {
      srtt = rtt;
      rttvar = rtt / 2;
    } else {
      rttvar = (1 - beta) * this.rttvar + beta * Math.abs(this.srtt - rtt);
      srtt = (1 - alpha) * this.srtt + alpha * rtt;
    }
    const rto = srtt + Math.max(this.settings.granularity, K * rttvar);
    return new RtoEstimator(srtt, rttvar, this.bound(rto), 0, this.settings);
  }

  /** The estimator after the timer expired: RTO doubles, up to the cap (RFC 6298 (5.5), "back off the timer"). */
  timeout(): RtoEstimator {
    return new RtoEstimator(this.srtt, this.rttvar, this.bound(this.rto * 2), this.backoffs + 1, this.settings);
  }

  private bound(rto: number): number {
    return Math.min(this.settings.maxRto, Math.max(this.settings.minRto, RTO_FLOOR, rto));
  }
}

/**
 * A fresh RFC 6298 estimator: RTO = 1 s until the first sample.
 *
 * @example
 * ```ts
 * let estimate = rtoEstimator();
 * estimate = estimate.sample(2000); // SRTT 2000, RTTVAR 1000, RTO 6000
 * estimate = estimate.timeout();    // RTO 12000
 * ```
 */
export function rtoEstimator(options: RtoEstimatorOptions = {}): RtoEstimator {
  const raw = checkOptionsObject('rtoEstimator options', options);
  const minRto = optionalNumber('minRto', raw['minRto'], RFC6298.minRto, { min: 0 });
  const maxRto = optionalNumber('maxRto', raw['maxRto'], RFC6298.maxRtoAtLeast, {
    min: Math.max(RFC6298.maxRtoAtLeast, minRto),
  });
  const initialRto = optionalNumber('initialRto', raw['initialRto'], RFC6298.initialRto, { min: Number.MIN_VALUE });
  const granularity = optionalNumber('granularity', raw['granularity'], 1, { min: 0 });
  const settings: Settings = { minRto, maxRto, granularity };
  return new RtoEstimator(undefined, undefined, Math.min(maxRto, Math.max(minRto, RTO_FLOOR, initialRto)), 0, settings);
}

/**
 * An adaptive per-attempt timeout for `retry({ attemptTimeout })`: it holds an RFC 6298 estimator,
 * samples the duration of every successful attempt and backs off on every timeout. Share one per
 * destination across calls, as TCP keeps one per connection. Each attempt of `retry()` is timed on its
 * own, so its samples are never ambiguous; Karn's rule applies through {@link RtoEstimator.sample}.
 *
 * @example
 * ```ts
 * const timeout = new RtoTracker();
 * await retry(({ signal }) => fetch(url, { signal }), { attemptTimeout: timeout });
 * ```
 */
export class RtoTracker {
  #estimate: RtoEstimator;

  constructor(options: RtoEstimatorOptions = {}) {
    this.#estimate = rtoEstimator(options);
  }

  /** The current estimator state. */
  get estimate(): RtoEstimator {
    return this.#estimate;
  }

  /** The timeout for the next attempt (the current RTO). */
  current(): number {
    return this.#estimate.rto;
  }

  /** Records a successful attempt that took `elapsed` ms. */
  onSuccess(elapsed: number): void {
    this.#estimate = this.#estimate.sample(elapsed);
  }

  /** Records an attempt cut by the timeout. */
  onTimeout(): void {
    this.#estimate = this.#estimate.timeout();
  }
}
