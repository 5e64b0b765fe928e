import { brand, hasBrand } from '../internal/brand.js';

/**
 * The server cannot resume a stream from the cursor it was opened from (the events since have been
 * compacted away, the cursor is unknown): SSE's 409 or 410, gRPC's OUT_OF_RANGE, or what the app's
 * own predicate recognises. The stream restarts from the beginning; the app should refetch what it
 * built from the items before. `cause` is the server's answer.
 */
export class CannotResumeError<K = unknown> extends Error {
  override readonly name = 'CannotResumeError';
  /** The cursor the server refused (the one the stream was opened from). */
  readonly cursor: K;

  constructor(cursor: K, options?: ErrorOptions) {
    const named = typeof cursor === 'string' || typeof cursor === 'number' ? ` ${JSON.stringify(cursor)}` : '';
    const cause = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      `the server cannot resume the stream from its cursor${named}; it restarts from the beginning${cause}`,
      options,
    );
    this.cursor = cursor;
    brand(this, 'CannotResumeError');
  }
}

/** Whether `value` is a {@link CannotResumeError} (from any copy of redialer). */
export function isCannotResumeError(value: unknown): value is CannotResumeError {
  return hasBrand(value, 'CannotResumeError');
}
