import { brand, hasBrand } from '../errors/brand.js';

/** The server sent an HTTP/2 GOAWAY frame: it accepts no new streams on this connection. */
export class GoawayError extends Error {
  override readonly name = 'GoawayError';

  constructor(
    /** The HTTP/2 error code of the frame (0 is NO_ERROR: a graceful shutdown or a max-age rotation). */
    readonly errorCode: number,
    /** The last stream the server will still process. */
    readonly lastStreamId: number | undefined,
  ) {
    super(`the server sent GOAWAY (HTTP/2 error code ${String(errorCode)})`);
    brand(this, 'GoawayError');
  }
}

/** Whether `value` is a {@link GoawayError} (from any copy of redialer). */
export function isGoawayError(value: unknown): value is GoawayError {
  return hasBrand(value, 'GoawayError');
}
