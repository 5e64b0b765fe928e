/**
 * gRPC's server pushback (gRFC A6, "Pushback"): trailing metadata `grpc-retry-pushback-ms`. A
 * non-negative integer asks the client to wait exactly that long before the next attempt, and the
 * backoff after it starts again from the initial backoff; a negative or unparseable value asks the
 * client not to retry at all.
 * @module
 */
import { MAX_DELAY_MS } from '../../../backoff/backoff.js';
import { readHeader } from './header-lookup.js';

/** The metadata key of gRPC's server pushback. */
export const GRPC_PUSHBACK_KEY = 'grpc-retry-pushback-ms';

/** What a server's pushback asks for. */
export type GrpcPushback =
  /** No pushback was sent. */
  | { readonly kind: 'none' }
  /** Wait exactly `delay` ms, then retry with the backoff reset. */
  | { readonly kind: 'wait'; readonly delay: number }
  /** Do not retry. `value` is what the server sent. */
  | { readonly kind: 'stop'; readonly value: string };

const NONE: GrpcPushback = Object.freeze({ kind: 'none' });

/**
 * Interprets one pushback value. Only a plain decimal integer is parseable; a huge one is clamped to
 * {@link MAX_DELAY_MS}, so the wait is never NaN, infinite or negative.
 */
export function parseGrpcPushback(value: string | undefined): GrpcPushback {
  if (value === undefined) return NONE;
  const text = value.trim();
  if (!/^\d+$/.test(text)) return Object.freeze({ kind: 'stop', value });
  return Object.freeze({ kind: 'wait', delay: Math.min(MAX_DELAY_MS, Number(text)) });
}

/**
 * Reads the pushback from gRPC metadata (a `@grpc/grpc-js` `Metadata`, or anything with
 * `get(key)` returning the values) or a plain object. Several values are unparseable.
 *
 * @example
 * ```ts
 * client.getThing(req, (err) => { if (err) readGrpcPushback(err.metadata); });
 * ```
 */
export function readGrpcPushback(metadata: unknown): GrpcPushback {
  return parseGrpcPushback(readHeader(metadata, GRPC_PUSHBACK_KEY));
}
