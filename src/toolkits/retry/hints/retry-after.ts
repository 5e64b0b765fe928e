/**
 * Reading `Retry-After` from a response or a header object; the value's grammar (RFC 9110 section
 * 10.2.3) is parsed by `backoff/retry-after-value.ts`, which the adapters share.
 * @module
 */
import { parseRetryAfter } from '../../../backoff/retry-after-value.js';
import { readHeader } from './header-lookup.js';

export { parseHttpDate, parseRetryAfter } from '../../../backoff/retry-after-value.js';

/**
 * Reads and parses `Retry-After` from a fetch `Response` or `Headers`, a Node `IncomingMessage`-like
 * object or a plain header object. Returns undefined when the field is absent or invalid.
 *
 * @example
 * ```ts
 * const response = await fetch(url);
 * const wait = readRetryAfter(response); // e.g. 30000 for "Retry-After: 30"
 * ```
 */
export function readRetryAfter(source: unknown, now: number = Date.now()): number | undefined {
  const value = readHeader(source, 'retry-after');
  return value === undefined ? undefined : parseRetryAfter(value, now);
}
