import { brand, hasBrand } from '../../internal/brand.js';
import { markGracefulEnd } from '../../errors/graceful-end.js';

/** HTTP/2 error code names (RFC 9113 §7) for messages. */
const CODE_NAMES: readonly string[] = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

/** The name of an HTTP/2 error code (`NO_ERROR`, `ENHANCE_YOUR_CALM`…), or `0x…` for an unknown one. */
export function http2CodeName(code: number): string {
  return CODE_NAMES[code] ?? `0x${code.toString(16)}`;
}

/**
 * The server sent an HTTP/2 GOAWAY frame: it accepts no new streams on this connection.
 *
 * `errorCode` 0 (NO_ERROR, {@link GoawayError.graceful}) is a graceful shutdown or a connection-age
 * rotation: the server is healthy. ENHANCE_YOUR_CALM (11) with debug data "too_many_pings" means the
 * client pinged more often than the server allows (see the keepalive options).
 */
export class GoawayError extends Error {
  override readonly name = 'GoawayError';

  constructor(
    /** The HTTP/2 error code of the frame (0 is NO_ERROR: a graceful shutdown or a max-age rotation). */
    readonly errorCode: number,
    /** The last stream the server will still process. */
    readonly lastStreamId: number | undefined,
    /** The frame's additional debug data (C-core sends "too_many_pings", "max_age"…), if any. */
    readonly debugData?: Uint8Array,
  ) {
    const text =
      debugData === undefined || debugData.length === 0 ? '' : ` "${Buffer.from(debugData).toString('latin1')}"`;
    super(
      errorCode === 0
        ? `the server closed the connection gracefully (GOAWAY NO_ERROR${text})`
        : `the server closed the connection with GOAWAY ${http2CodeName(errorCode)} (HTTP/2 error code ${String(errorCode)})${text}`,
    );
    brand(this, 'GoawayError');
    // NO_ERROR: the manager does not count the end of an established connection against the server.
    if (errorCode === 0) markGracefulEnd(this);
  }

  /** Whether the server ended the connection gracefully (NO_ERROR): not a failure of the server. */
  get graceful(): boolean {
    return this.errorCode === 0;
  }

  /** Whether the server asked the client to calm down (ENHANCE_YOUR_CALM, code 11). */
  get enhanceYourCalm(): boolean {
    return this.errorCode === 0xb;
  }

  /** The debug data as text (latin1), or '' when there is none. */
  get debugText(): string {
    return this.debugData === undefined ? '' : Buffer.from(this.debugData).toString('latin1');
  }
}

/** Whether `value` is a {@link GoawayError} (from any copy of redialer). */
export function isGoawayError(value: unknown): value is GoawayError {
  return hasBrand(value, 'GoawayError');
}
