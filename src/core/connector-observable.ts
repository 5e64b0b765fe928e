/**
 * What a connector returns, checked the same way for every runner: an RxJS Observable is used as it
 * is; an interop Observable (an object with `Symbol.observable`, from another library or another copy
 * of rxjs) is adopted with rxjs's `from()`; anything else stops the manager with a PermanentError
 * whose cause is a TypeError saying what came back.
 * @module
 */
import { type InteropObservable, Observable, from } from 'rxjs';
import { permanent } from '../errors/permanent-error.js';
import { readSafely } from '../internal/read-safely.js';
import { describeValue } from '../internal/validate.js';

/** The interop key, chosen as rxjs chooses it (so that `from()` reads the same one). */
const symbolObservable: PropertyKey = (Symbol as { readonly observable?: symbol }).observable ?? '@@observable';

/** The Observable behind a connector's return value; throws a PermanentError for anything else. */
export function toConnectorObservable<C>(value: unknown, who = 'the connector'): Observable<C> {
  if (value instanceof Observable) return value as Observable<C>;
  if (typeof readSafely(value, symbolObservable) === 'function') return from(value as InteropObservable<C>);
  throw permanent(
    new TypeError(
      `redialer: ${who} must return an Observable (RxJS, or an object with Symbol.observable), got ${describeValue(value)}`,
    ),
  );
}
