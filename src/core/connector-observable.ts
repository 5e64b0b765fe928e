/**
 * What a connector returns, checked the same way for every runner: an RxJS Observable is used as it
 * is; an interop Observable (an object with `Symbol.observable`, from another library or another copy
 * of rxjs) is adopted as rxjs's `from()` adopts one, without `from()`'s machinery for promises,
 * iterables and streams (a browser bundle would carry it for this one case); anything else stops the
 * manager with a PermanentError whose cause is a TypeError saying what came back.
 * @module
 */
import { Observable, type Subscribable } from 'rxjs';
import { permanent } from '../errors/permanent-error.js';
import { readSafely } from '../internal/read-safely.js';
import { describeValue } from '../internal/validate.js';

/** The interop key, chosen as rxjs chooses it (so that `from()` reads the same one). */
const symbolObservable: PropertyKey = (Symbol as { readonly observable?: symbol }).observable ?? '@@observable';

/** The Observable behind a connector's return value; throws a PermanentError for anything else. */
export function toConnectorObservable<C>(value: unknown, who = 'the connector'): Observable<C> {
  if (value instanceof Observable) return value as Observable<C>;
  const interop = readSafely(value, symbolObservable);
  if (typeof interop === 'function') {
    return new Observable<C>((subscriber) => {
      const source: unknown = (interop as () => unknown).call(value);
      if (typeof readSafely(source, 'subscribe') !== 'function') {
        throw permanent(
          new TypeError(`redialer: ${who} returned an interop Observable whose Symbol.observable gives no subscribe()`),
        );
      }
      return (source as Subscribable<C>).subscribe(subscriber);
    });
  }
  throw permanent(
    new TypeError(
      `redialer: ${who} must return an Observable (RxJS, or an object with Symbol.observable), got ${describeValue(value)}`,
    ),
  );
}
