/**
 * One line for a thrown value in redialer's messages: the one format every component uses when it
 * names an error it caught.
 * @module
 */
import { describeSafely, readSafely } from './read-safely.js';
import { describeValue } from './validate.js';

/** Whether `error` is one of redialer's own (it carries a `redialer.<Name>` brand): its message says what happened. */
function isOwnError(error: object): boolean {
  try {
    return Object.getOwnPropertySymbols(error).some(
      (symbol) => Symbol.keyFor(symbol)?.startsWith('redialer.') === true,
    );
  } catch {
    return false;
  }
}

/**
 * Describes `error` for a message: `message` for a plain `Error` and for redialer's own errors (whose
 * messages name what happened), `Name: message` for any other subclass (`RangeError: bad`), with its string `code` appended in parentheses when the message does not
 * already say it (`connect refused (ECONNREFUSED)`); a primitive as validation messages show it
 * (`"text"`, `42`, `undefined`). Never throws, even for a hostile Proxy.
 */
export function describeError(error: unknown): string {
  if ((typeof error !== 'object' || error === null) && typeof error !== 'function') return describeValue(error);
  const message = readSafely(error, 'message');
  if (typeof message !== 'string') return describeSafely(error);
  const name = readSafely(error, 'name');
  const named = typeof name === 'string' && name !== '' && name !== 'Error' && !isOwnError(error);
  const head = named ? `${name}: ${message}` : message;
  const code = readSafely(error, 'code');
  return typeof code === 'string' && code !== '' && !message.includes(code) ? `${head} (${code})` : head;
}
