/**
 * The rule for what the connection manager treats as permanent without being told: an error that
 * JavaScript throws for a bug (a `ReferenceError` such as "WebSocket is not defined", a
 * `SyntaxError` or `TypeError` for a malformed URL, a `RangeError` for a port out of range), thrown
 * synchronously while an attempt starts (by the connector, or by its Observable while it is being
 * subscribed). Retrying runs the same code with the same input and fails the same way, so the
 * manager stops at once instead of retrying for ever. The same kinds of error arriving later (a
 * `fetch` that rejects with a TypeError on a network failure) stay transient.
 * @module
 */
import { PermanentError, isPermanentError } from '../errors/permanent-error.js';
import { readSafely } from '../internal/read-safely.js';

/**
 * The names of the errors JavaScript throws for bugs (ECMAScript's native errors but
 * AggregateError). Matched by name, so that a DOMException named SyntaxError (a WebSocket
 * constructor given a bad URL) and errors from another realm count too.
 */
export const PROGRAMMING_ERROR_NAMES: readonly string[] = Object.freeze([
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
]);

/** Whether `error` is one that JavaScript throws for a bug (see {@link PROGRAMMING_ERROR_NAMES}). */
export function isProgrammingError(error: unknown): boolean {
  const name = readSafely(error, 'name');
  return (
    typeof name === 'string' &&
    PROGRAMMING_ERROR_NAMES.includes(name) &&
    typeof readSafely(error, 'message') === 'string'
  );
}

/**
 * An error thrown while an attempt starts: a {@link PermanentError} whose `cause` is `error` if it is
 * a programming error, `error` unchanged otherwise.
 */
export function permanentIfProgrammingError(error: unknown): unknown {
  if (isPermanentError(error) || !isProgrammingError(error)) return error;
  const name = String(readSafely(error, 'name'));
  const message = String(readSafely(error, 'message'));
  return new PermanentError(
    `redialer: the connector threw ${name} while starting an attempt, a bug that retrying cannot fix: ${message}`,
    { cause: error },
  );
}
