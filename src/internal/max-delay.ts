/**
 * The longest delay anything in redialer waits: 2^31 - 1 ms (about 24.8 days), the largest value that
 * `setTimeout` honours. Every delay a policy yields is clamped into [0, MAX_DELAY_MS], and every timer
 * and hint is bounded by it.
 */
export const MAX_DELAY_MS = 2 ** 31 - 1;
