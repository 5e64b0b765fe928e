/**
 * A scriptable connector for tests of code that uses a ConnectionManager.
 * @module
 */
import { Observable, type Subscriber } from 'rxjs';
import type { AttemptContext, Connector } from '../core/connector.js';

/** One attempt the fake connector received; drive it by hand or from `respond`. */
export interface FakeAttempt<C> {
  /** The context the manager passed. */
  readonly context: AttemptContext;
  /** `pending` until established, then `established`; `ended` once it failed, closed or was torn down. */
  readonly status: 'pending' | 'established' | 'ended';
  /** Whether the manager tore this attempt down (cut, idle or shutdown). */
  readonly torndown: boolean;
  /** Signals establishment with `connection`. */
  establish(connection: C): void;
  /** Ends the attempt or connection with an error. */
  fail(error?: unknown): void;
  /** Ends the attempt or connection cleanly. */
  close(): void;
}

/** A fake connector and the record of what it was asked to do. */
export interface FakeConnector<C> {
  /** Pass as the `connector` option. */
  readonly connector: Connector<C>;
  /** Every attempt, oldest first. */
  readonly attempts: readonly FakeAttempt<C>[];
  /** The newest attempt, if any. */
  readonly last: FakeAttempt<C> | undefined;
  /** Attempts neither ended nor torn down. */
  inFlight(): number;
}

class Attempt<C> implements FakeAttempt<C> {
  status: 'pending' | 'established' | 'ended' = 'pending';
  torndown = false;

  constructor(
    readonly context: AttemptContext,
    private readonly subscriber: Subscriber<C>,
  ) {}

  establish(connection: C): void {
    if (this.status !== 'pending') throw new Error(`fake attempt ${String(this.context.attempt)} is ${this.status}`);
    this.status = 'established';
    this.subscriber.next(connection);
  }

  fail(error: unknown = new Error('fake connection failure')): void {
    if (this.status === 'ended') throw new Error(`fake attempt ${String(this.context.attempt)} has ended`);
    this.status = 'ended';
    this.subscriber.error(error);
  }

  close(): void {
    if (this.status === 'ended') throw new Error(`fake attempt ${String(this.context.attempt)} has ended`);
    this.status = 'ended';
    this.subscriber.complete();
  }
}

/**
 * Creates a fake connector. `respond`, if given, runs for each new attempt and may settle it at once
 * (for example `(a) => a.fail()` for a server that refuses every connection).
 */
export function createFakeConnector<C = string>(respond?: (attempt: FakeAttempt<C>) => void): FakeConnector<C> {
  const attempts: Attempt<C>[] = [];
  const connector: Connector<C> = (context) =>
    new Observable<C>((subscriber) => {
      const attempt = new Attempt(context, subscriber);
      attempts.push(attempt);
      respond?.(attempt);
      return () => {
        if (attempt.status !== 'ended') {
          attempt.torndown = true;
          attempt.status = 'ended';
        }
      };
    });
  return {
    connector,
    attempts,
    get last() {
      return attempts.at(-1);
    },
    inFlight: () => attempts.filter((a) => a.status !== 'ended').length,
  };
}
