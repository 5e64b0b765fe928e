/**
 * The resumable-stream contract, once for every transport: a stream is opened from a cursor (the
 * position of the last item the app has), each item that carries a cursor moves it, items the server
 * replays from before the cursor are dropped, and a server that answers "cannot resume from there"
 * is signalled as its own event — after which the stream starts again from the beginning, on the
 * connection schedule like any other re-open, and the app refetches what it built from the items it
 * had.
 *
 * `ResilientStream` (gRPC) and `ReconnectingEventSource` (SSE) are built on it; over any other
 * transport (a WebSocket protocol with sequence numbers) an app uses it the same way: `open()` when it
 * (re)opens, `accept(cursor)` for each item, `refuse(from, answer)` on the server's refusal.
 *
 * The cursor is the adapter's only copy of the position: nothing else keeps one.
 * @module
 */
import { type Observable, Subject } from 'rxjs';
import { CannotResumeError } from '../errors/cannot-resume-error.js';

/** Options of {@link ResumeCursor}. */
export interface ResumeCursorOptions<K> {
  /** Where the first open resumes from (a position the app stored). @defaultValue none: from the beginning */
  readonly initial?: K | undefined;
  /**
   * Whether `cursor` comes after `current`. With it, an item whose cursor does not is a replay of one
   * already delivered and is dropped (and so is an item without a cursor that follows it, up to the
   * next item that is new). @defaultValue none: every item is new
   */
  readonly isAfter?: ((cursor: K, current: K) => boolean) | undefined;
}

/** A stream's position, and the rules of resuming from it; see the module notes. */
export class ResumeCursor<K> {
  /** Every refusal to resume, as it happens (before the re-open from the beginning). */
  readonly resync$: Observable<CannotResumeError<K>>;
  readonly #resync = new Subject<CannotResumeError<K>>();
  readonly #isAfter: ((cursor: K, current: K) => boolean) | undefined;
  #current: K | undefined;
  /** The last item with a cursor in this open was a replay: items without one are too. */
  #replaying = false;

  constructor(options: ResumeCursorOptions<K> = {}) {
    this.#current = options.initial;
    this.#isAfter = options.isAfter;
    this.resync$ = this.#resync.asObservable();
  }

  /** The position: the cursor of the last item delivered (or the initial one); undefined: none. */
  get current(): K | undefined {
    return this.#current;
  }

  /** A (re)open starts: the cursor it resumes from (undefined: from the beginning). */
  open(): K | undefined {
    this.#replaying = false;
    return this.#current;
  }

  /**
   * An item arrived carrying `cursor` (undefined: it carries none): whether to deliver it. A new item
   * moves the position to its cursor; a replay (not after the position, by `isAfter`) leaves it.
   */
  accept(cursor: K | undefined): boolean {
    if (cursor === undefined) return !this.#replaying;
    if (this.#current !== undefined && this.#isAfter !== undefined && !this.#isAfter(cursor, this.#current)) {
      this.#replaying = true;
      return false;
    }
    this.#replaying = false;
    this.#current = cursor;
    return true;
  }

  /**
   * The server refused to resume the open that started from `from` (`answer`: its status or error).
   * Forgets the position, so that the next open starts from the beginning, and signals the refusal on
   * `resync$`; returns the error to end the attempt with. An open that had no cursor cannot be refused
   * a resume: then nothing happens and the result is undefined (the answer is the server's own failure).
   * After `complete()` the position is still forgotten, but nothing is signalled.
   */
  refuse(from: K | undefined, answer: unknown): CannotResumeError<K> | undefined {
    if (from === undefined) return undefined;
    const error = new CannotResumeError(from, { cause: answer });
    this.#current = undefined;
    this.#replaying = false;
    this.#resync.next(error);
    return error;
  }

  /** Forgets the position without a refusal (the server reset its cursor): the next open starts from the beginning. */
  reset(): void {
    this.#current = undefined;
    this.#replaying = false;
  }

  /** The stream ended for good: `resync$` completes. */
  complete(): void {
    this.#resync.complete();
  }
}
