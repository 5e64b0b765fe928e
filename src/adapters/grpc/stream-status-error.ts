import type { Metadata, status as Status, StatusObject } from '@grpc/grpc-js';
import { brand, hasBrand } from '../../internal/brand.js';

/** A stream ended with a gRPC status: the reason it was re-opened (transient) or gave up (permanent). */
export class StreamStatusError extends Error {
  override readonly name = 'StreamStatusError';
  /** The gRPC status code. */
  readonly code: Status;
  /** The status message from the server (or from grpc-js). */
  readonly details: string;
  /** The trailers. */
  readonly metadata: Metadata;

  constructor(status: StatusObject) {
    super(`the stream ended with status ${String(status.code)}: ${status.details}`);
    this.code = status.code;
    this.details = status.details;
    this.metadata = status.metadata;
    brand(this, 'StreamStatusError');
  }
}

/** Whether `value` is a {@link StreamStatusError} (from any copy of redialer). */
export function isStreamStatusError(value: unknown): value is StreamStatusError {
  return hasBrand(value, 'StreamStatusError');
}
