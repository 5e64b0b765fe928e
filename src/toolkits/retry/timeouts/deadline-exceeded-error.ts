import { brand, hasBrand } from '../../../internal/brand.js';
import { formatDuration } from '../../../internal/format-duration.js';

/**
 * A whole call's deadline was reached: across every attempt and wait, the call took as long as it
 * was given. Unlike {@link AttemptTimeoutError} (one attempt cut, worth another), this means stop:
 * the default classifier calls it permanent. Attempts still in flight are aborted with it.
 */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';

  constructor(
    /** The deadline the call was given, in milliseconds. */
    readonly deadline: number,
    /** How many attempts the call had started when the deadline came. */
    readonly attempts: number,
  ) {
    super(`the call's deadline of ${formatDuration(deadline)} was reached after ${String(attempts)} attempts`);
    brand(this, 'DeadlineExceededError');
  }
}

/** Whether `value` is a {@link DeadlineExceededError} (from any copy of redialer). */
export function isDeadlineExceededError(value: unknown): value is DeadlineExceededError {
  return hasBrand(value, 'DeadlineExceededError');
}
