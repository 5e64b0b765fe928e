/**
 * The degraded signal of a `ManagedChannel` without health checking: calls on a READY connection that
 * keep failing with UNAVAILABLE (a proxy answering 502, 503 or 504 for a backend it cannot reach,
 * while its own connection to the client is fine; grpc-js 1.10 says RESOURCE_EXHAUSTED for the same
 * answer, see `proxy-error-page.ts`) make the connection degraded after `threshold` in
 * a row; any other end of a call on it (OK, or any status the service itself gave) makes it healthy
 * again, as does the connection's end (the state then says what there is to say). Calls that never
 * reached the service's answer (CANCELLED by the client, DEADLINE_EXCEEDED) neither count nor
 * clear: they say nothing about the service.
 * @module
 */
import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import { NotServingError } from '../../errors/not-serving-error.js';
import { CANCELLED, UNAVAILABLE } from './health-check/grpc-status.js';
import { callEndCode } from './grpc-js-workarounds/proxy-error-page.js';

const DEADLINE_EXCEEDED = 4;

/** Counts the ends of calls on the current connection; see the module notes. */
export class DegradedCalls<C> {
  readonly #threshold: number;
  readonly #reason = new BehaviorSubject<NotServingError | undefined>(undefined);
  /** The reason while degraded (a `NotServingError` with status UNAVAILABLE), undefined while not. */
  readonly degraded$: Observable<NotServingError | undefined>;
  #connection: C | undefined;
  #failures = 0;

  constructor(threshold: number) {
    this.#threshold = threshold;
    this.degraded$ = this.#reason.pipe(distinctUntilChanged());
  }

  /** The connection calls now start on (READY), or undefined: counting starts over either way. */
  connectionChanged(connection: C | undefined): void {
    if (connection === this.#connection) return;
    this.#connection = connection;
    this.#failures = 0;
    if (this.#reason.value !== undefined) this.#reason.next(undefined);
  }

  /** A call attached to `connection` ended with `code`. */
  callEnded(connection: C, ended: number, details: string): void {
    const code = callEndCode(ended, details);
    if (connection !== this.#connection || code === CANCELLED || code === DEADLINE_EXCEEDED) return;
    if (code !== UNAVAILABLE) {
      this.#failures = 0;
      if (this.#reason.value !== undefined) this.#reason.next(undefined);
      return;
    }
    this.#failures += 1;
    if (this.#failures >= this.#threshold) {
      this.#reason.next(
        new NotServingError(undefined, 'UNAVAILABLE', {
          detail: `${String(this.#failures)} calls in a row on a READY connection failed, the last with "${details}"`,
        }),
      );
    }
  }

  /** Ends the signal (the channel closed). */
  complete(): void {
    this.#reason.complete();
  }
}
