/**
 * The subject behind a manager's `state$`: the semantics of RxJS's `ReplaySubject(1)` at a fraction of
 * its cost per emission.
 * @module
 */
import { Observable, type Subscriber, type TeardownLogic } from 'rxjs';

/**
 * Gives each subscriber the latest value at once and then every later one, and completes them with
 * the subject; a subscriber that arrives after completion still receives the last value, then
 * completes. Like `ReplaySubject(1)`, a subscriber is added before the latest value is replayed to it,
 * so a value emitted from inside that replay reaches it too, and an emission runs over the
 * subscribers present when it began.
 *
 * `ReplaySubject(1)` costs more per emission, which a fleet of managers pays on every transition: in
 * RxJS's Node build it copies into and splices its buffer, wraps each emission in an error-context
 * closure, and walks its observers with an iterator object. Here an emission is a loop over an array
 * that is replaced, never changed, when a subscriber comes or goes.
 */
export class LatestSubject<T> {
  #latest: T;
  #done = false;
  #subscribers: readonly Subscriber<T>[] = [];
  /** The subject as a read-only Observable. */
  readonly observable: Observable<T>;

  constructor(latest: T) {
    this.#latest = latest;
    this.observable = new Observable<T>((subscriber) => this.#subscribe(subscriber));
  }

  #subscribe(subscriber: Subscriber<T>): TeardownLogic {
    const latest = this.#latest;
    if (this.#done) {
      subscriber.next(latest);
      subscriber.complete();
      return undefined;
    }
    // concat makes an array of the exact size; a spread into a literal grows one with room to spare.
    this.#subscribers = this.#subscribers.concat(subscriber);
    subscriber.next(latest);
    return () => {
      this.#subscribers = this.#subscribers.filter((s) => s !== subscriber);
    };
  }

  /** Emits `value` to every subscriber (after completion: ignored). */
  next(value: T): void {
    if (this.#done) return;
    this.#latest = value;
    for (const subscriber of this.#subscribers) subscriber.next(value);
  }

  /** Completes every subscriber; later subscribers receive the last value and complete. */
  complete(): void {
    if (this.#done) return;
    this.#done = true;
    const subscribers = this.#subscribers;
    this.#subscribers = [];
    for (const subscriber of subscribers) subscriber.complete();
  }
}
