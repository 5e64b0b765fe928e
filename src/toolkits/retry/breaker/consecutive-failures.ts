/**
 * The consecutive-failures trip rule (cockatiel's `ConsecutiveBreaker`): the breaker opens after
 * `threshold` failures in a row. Its state is the length of the current run of failures.
 * @module
 */
import type { TripStrategy } from './trip-strategy.js';

/**
 * Opens after `threshold` counted failures in a row; a success ends the run. A late call (admitted
 * before the breaker's last change) neither extends nor ends the run. `threshold` is checked by the
 * caller (an integer >= 1).
 */
export function consecutiveFailures(threshold: number): TripStrategy<number> {
  return {
    initial: () => 0,
    record: (run, outcome) => {
      if (outcome.late) return run;
      return outcome.kind === 'success' ? 0 : run + 1;
    },
    shouldTrip: (run) => run >= threshold,
  };
}
