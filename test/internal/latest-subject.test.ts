/**
 * LatestSubject against RxJS's own ReplaySubject(1): the same operations, applied to both, give every
 * subscriber the same notifications in the same order, including subscribers that emit or
 * unsubscribe from inside a notification.
 */
import fc from 'fast-check';
import { ReplaySubject, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LatestSubject } from '../../src/internal/latest-subject.js';

/** What a subscriber does when it receives a value (once, the first time a condition holds). */
type Reaction = 'none' | 'emit' | 'unsubscribe' | 'complete' | 'subscribe';

type Op =
  | { readonly op: 'subscribe'; readonly reaction: Reaction }
  | { readonly op: 'next' }
  | { readonly op: 'complete' }
  | { readonly op: 'unsubscribe'; readonly which: number };

interface Target {
  next(value: number): void;
  complete(): void;
  subscribe(observer: { next: (value: number) => void; complete: () => void }): Subscription;
}

/** Runs `ops` on `target` and returns every subscriber's notifications, in one shared order. */
function trace(target: Target, ops: readonly Op[]): string[] {
  const log: string[] = [];
  const subscriptions: (Subscription | undefined)[] = [];
  let value = 100;
  const subscribe = (reaction: Reaction): void => {
    const id = subscriptions.length;
    subscriptions.push(undefined);
    let reacted = false;
    // (A subscriber reacting during its replay, before subscribe() returns, has no subscription yet.)
    const subscription = target.subscribe({
      next: (v) => {
        log.push(`${String(id)}:${String(v)}`);
        if (reacted) return;
        reacted = true;
        if (reaction === 'emit') target.next(value++);
        else if (reaction === 'unsubscribe') subscriptions[id]?.unsubscribe();
        else if (reaction === 'complete') target.complete();
        else if (reaction === 'subscribe') subscribe('none');
      },
      complete: () => log.push(`${String(id)}:complete`),
    });
    subscriptions[id] = subscription;
  };
  target.next(value++);
  for (const op of ops) {
    if (op.op === 'subscribe') subscribe(op.reaction);
    else if (op.op === 'next') target.next(value++);
    else if (op.op === 'complete') target.complete();
    else subscriptions[op.which % Math.max(1, subscriptions.length)]?.unsubscribe();
  }
  return log;
}

function latest(): Target {
  let subject: LatestSubject<number> | undefined;
  return {
    next: (v) => {
      if (subject === undefined) subject = new LatestSubject(v);
      else subject.next(v);
    },
    complete: () => subject?.complete(),
    subscribe: (observer) => {
      if (subject === undefined) throw new Error('no value yet');
      return subject.observable.subscribe(observer);
    },
  };
}

function replay(): Target {
  const subject = new ReplaySubject<number>(1);
  return {
    next: (v) => {
      subject.next(v);
    },
    complete: () => {
      subject.complete();
    },
    subscribe: (observer) => subject.subscribe(observer),
  };
}

const ops = fc.array(
  fc.oneof(
    fc.record({
      op: fc.constant('subscribe' as const),
      reaction: fc.constantFrom<Reaction>('none', 'emit', 'unsubscribe', 'complete', 'subscribe'),
    }),
    fc.record({ op: fc.constant('next' as const) }),
    fc.record({ op: fc.constant('complete' as const) }),
    fc.record({ op: fc.constant('unsubscribe' as const), which: fc.nat(20) }),
  ),
  { maxLength: 25 },
);

describe('LatestSubject', () => {
  it('notifies exactly as ReplaySubject(1) does, for any sequence of operations', () => {
    fc.assert(
      fc.property(ops, (sequence) => {
        expect(trace(latest(), sequence)).toEqual(trace(replay(), sequence));
      }),
      { numRuns: 2000 },
    );
  });

  it('replays the latest value, then the later ones; after completion the last value, then completion', () => {
    const subject = new LatestSubject('a');
    const seen: string[] = [];
    subject.next('b');
    const early = subject.observable.subscribe({ next: (v) => seen.push(`early ${v}`) });
    subject.next('c');
    subject.complete();
    subject.next('ignored');
    subject.observable.subscribe({ next: (v) => seen.push(`late ${v}`), complete: () => seen.push('late done') });
    expect(seen).toEqual(['early b', 'early c', 'late c', 'late done']);
    expect(early.closed).toBe(true);
  });
});
