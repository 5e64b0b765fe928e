/**
 * When a closed breaker opens, as a strategy behind one small interface: the breaker's decision
 * records each call's outcome in the strategy's own state and asks it whether to trip, without
 * knowing which rule it runs. A strategy's state is a value: `record` returns a new one.
 * @module
 */

/** How one counted call ended, as a trip strategy sees it. */
export interface CallOutcome {
  /** The call succeeded, or failed with an error that counts as a failure. */
  readonly kind: 'success' | 'failure';
  /**
   * The call was admitted before the breaker's last state change: a rule may count it (a ratio over
   * time does), but it cannot move the breaker.
   */
  readonly late: boolean;
}

/** A rule that decides when a closed breaker opens, over a state of its own (`S`). */
export interface TripStrategy<S> {
  /** The state of a breaker that has just closed (or was just made). */
  initial(): S;
  /** The state after one counted call ended at `now`. */
  record(state: S, outcome: CallOutcome, now: number): S;
  /** Whether the breaker opens, judged at `now` right after a counted failure of a current call. */
  shouldTrip(state: S, now: number): boolean;
}
