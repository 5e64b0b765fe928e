/**
 * The Watch stream on a plain node:http2 session: a gRPC call written by hand (one length-prefixed
 * request, length-prefixed responses, the status in the trailers, or in the headers of a
 * trailers-only response, or the HTTP status of a proxy's own answer), so that `http2Connector` needs
 * no gRPC library.
 * @module
 */
import { type ClientHttp2Session, constants } from 'node:http2';
import { decodeHealthResponse, HEALTH_WATCH_PATH } from './health-messages.js';
import { grpcStatusOfHttp, INTERNAL, UNAVAILABLE } from './grpc-status.js';
import type { HealthWatchTransport } from './health-checked.js';

/** A gRPC message frame: no compression, a 4-byte big-endian length, the message. */
function frame(message: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function decodeMessage(value: string | undefined): string {
  if (value === undefined) return '';
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The Watch stream over node:http2, for `http2Connector`. */
export const http2HealthWatch: HealthWatchTransport<ClientHttp2Session> = {
  open(session, request, handlers) {
    let over = false;
    const isOver = (): boolean => over;
    const end = (code: number, details: string): void => {
      if (over) return;
      over = true;
      handlers.end(code, details);
    };
    let stream: ReturnType<ClientHttp2Session['request']>;
    try {
      stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: HEALTH_WATCH_PATH,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        [constants.HTTP2_HEADER_TE]: 'trailers',
      });
    } catch (error) {
      // The session is closing (a GOAWAY arrived): the connection's end is reported by the connector.
      queueMicrotask(() => {
        end(UNAVAILABLE, `the Watch stream could not be opened: ${(error as Error).message}`);
      });
      return () => {
        over = true;
      };
    }
    let pending: Buffer = Buffer.alloc(0);
    let status: { code: number; details: string } | undefined;
    const onStatus = (headers: Readonly<Record<string, string | string[] | undefined>>): boolean => {
      const code = headerText(headers['grpc-status']);
      if (code === undefined) return false;
      status = { code: Number(code), details: decodeMessage(headerText(headers['grpc-message'])) };
      return true;
    };
    stream.on('response', (headers) => {
      const httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
      if (onStatus(headers)) return;
      if (httpStatus !== 200) {
        status = { code: grpcStatusOfHttp(httpStatus), details: `Received HTTP status code ${String(httpStatus)}` };
      }
    });
    stream.on('trailers', (trailers: Readonly<Record<string, string | string[] | undefined>>) => {
      onStatus(trailers);
    });
    stream.on('data', (chunk: Buffer) => {
      if (over || status !== undefined) return;
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      // A status may cancel the stream (the manager shut the check down): nothing is parsed after that.
      while (!isOver() && pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 5 + length) return;
        if (pending[0] !== 0) {
          end(INTERNAL, 'a compressed health response, though none was asked for');
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
        const message = pending.subarray(5, 5 + length);
        pending = pending.subarray(5 + length);
        try {
          handlers.status(decodeHealthResponse(message));
        } catch (error) {
          end(INTERNAL, (error as Error).message);
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
      }
    });
    // Errors are reported through 'close' (with the RST_STREAM code); a listener keeps them from throwing.
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (status !== undefined) end(status.code, status.details);
      else end(UNAVAILABLE, `the Watch stream closed without a status (RST_STREAM code ${String(stream.rstCode)})`);
    });
    stream.end(frame(request));
    return () => {
      over = true;
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
    };
  },
  isOpen: (session) => !session.closed && !session.destroyed,
};
