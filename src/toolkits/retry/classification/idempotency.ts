/**
 * Idempotency: whether an operation may be sent again after a failure that may have reached the server.
 * @module
 */
import { readHeader } from '../hints/header-lookup.js';
import type { SentVerdict } from './classify.js';

/**
 * What an operation declares about repeating it:
 * - `idempotent`: repeating it has the effect of doing it once (GET, PUT, DELETE…);
 * - `conditional`: idempotent only when it carries a precondition (If-Match, a generation match), so
 *   that a repeat of an already applied write fails instead of applying twice;
 * - `never`: repeating it may apply it twice (a plain POST, a payment).
 */
export type Idempotency = 'idempotent' | 'conditional' | 'never';

/** The idempotency kinds, for validation. */
export const IDEMPOTENCY_KINDS: readonly Idempotency[] = Object.freeze(['idempotent', 'conditional', 'never']);

/**
 * Whether an operation may be attempted again after a failure. An idempotent operation (or a
 * conditional one that carries its precondition) always may; any other only when the failure proves
 * that nothing was sent.
 */
export function maySendAgain(idempotency: Idempotency, precondition: boolean, sent: SentVerdict): boolean {
  if (idempotency === 'idempotent' || (idempotency === 'conditional' && precondition)) return true;
  return sent === 'no';
}

/** Headers that make a write conditional: RFC 9110 preconditions and Google Cloud Storage's generation matches. */
export const PRECONDITION_HEADERS: readonly string[] = Object.freeze([
  'if-match',
  'if-none-match',
  'if-unmodified-since',
  'x-goog-if-generation-match',
  'x-goog-if-metageneration-match',
]);

/**
 * Whether a request's headers (a `Headers`, a `Request`, or a plain object) carry a precondition.
 *
 * @example
 * ```ts
 * const init = { method: 'PUT', headers: { 'If-Match': etag } };
 * await retry(() => fetch(url, init), { idempotency: 'conditional', precondition: hasPrecondition(init.headers) });
 * ```
 */
export function hasPrecondition(headers: unknown): boolean {
  return PRECONDITION_HEADERS.some((name) => readHeader(headers, name) !== undefined);
}

/** The idempotency RFC 9110 (section 9.2.2) gives an HTTP method: POST, PATCH and unknown methods are `never`. */
export function idempotencyOfMethod(method: string): Idempotency {
  return ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'].includes(method.toUpperCase()) ? 'idempotent' : 'never';
}
